//! Lays out a demo conda installation to try envhook on:
//!
//! ```text
//! cargo run -q --example demo-env -- /tmp/envhook-demo
//! cargo run -q -- show -p /tmp/envhook-demo/miniconda3/envs/paddle
//! ```
//!
//! It writes a root prefix `miniconda3/` (itself the `base` environment)
//! with four more (`paddle`:
//! CUDA 11 cudatoolkit + cuDNN 8 + the Paddle 2.5 CUDA 11.6 wheel; `torch`:
//! conda-forge CUDA 12.6 split packages + pytorch; `wheels`: PyPI torch with
//! nvidia-*-cu12 wheels; `cpu`: no CUDA), and `home/.conda/environments.txt`
//! as conda would leave it. The records and file layouts are the ones the
//! test suite uses (`tests/support`).

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::PathBuf;

fn main() {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: demo-env DIR");
        std::process::exit(2);
    };
    // Re-running replaces an earlier demo, and only an earlier demo.
    let marker = dir.join(".envhook-demo");
    if marker.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    } else if dir.exists() && std::fs::read_dir(&dir).unwrap().next().is_some() {
        eprintln!(
            "demo-env: {} exists and is not an envhook demo; pick another DIR",
            dir.display()
        );
        std::process::exit(2);
    }
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&marker, "written by `cargo run --example demo-env`\n").unwrap();
    let (root, home) = support::demo(&dir);
    let envs = root.join("envs");
    println!("demo installation written to {}", dir.display());
    println!("try:");
    println!("  envhook show -p {}", envs.join("paddle").display());
    println!("  HOME={} envhook envs", home.display());
    println!("  HOME={} envhook show -n torch", home.display());
}
