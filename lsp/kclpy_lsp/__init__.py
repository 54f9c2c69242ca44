"""kclpy language server (pygls); imports kclpy, never the reverse."""
