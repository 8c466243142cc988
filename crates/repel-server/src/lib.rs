//! repel-server: a kubectl-compatible Kubernetes API server over repel's engine.
//!
//! Work in progress (issue 6); the modules land step by step.
