[package]
name = "k8s_models_bench"
version = "0.1.0"

[dependencies]
k8s = "1.31.2"
