[package]
name = "shop"
edition = "v0.9.0"
version = "0.2.0"
