//! `envhook explain` on messages no environment causes (#41): the GPU out
//! of memory, a kernel's fault, an error in the user's code, a harmless
//! warning. Each gets what it is and what to look at, never an install,
//! and exit code 3. Every message is a real one, from the issue thread
//! named above it.

use crate::support;

use support::Sandbox;
use support::explaining::{explain, explain_text, known, text, torch_cu128};

/// The verdict, the exit code and the row's step for each real message.
fn not_environment(message: &str, kind: &str, step: Option<&str>) {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let (json, code) = explain(&sb, &env.prefix, message, &[]);
    assert_eq!(code, 3, "{message}: {json:#}");
    assert_eq!(json["verdict"], "not-environment", "{json:#}");
    assert_eq!(json["known"][0]["kind"], kind, "{json:#}");
    assert!(json["causes"].as_array().unwrap().is_empty(), "{json:#}");
    assert!(json["answers"].as_array().unwrap().is_empty(), "{json:#}");
    assert!(!text(&json["known"][0]["look"]).is_empty(), "{json:#}");
    assert_eq!(
        json["known"][0]["fix"]["command"].as_str(),
        step,
        "{json:#}"
    );
    let (shown, code) = explain_text(&sb, &env.prefix, message, &[]);
    assert_eq!(code, 3);
    assert!(shown.contains("  look at: "), "{shown}");
    assert!(
        shown.contains("this is not an environment problem: nothing to install or change in"),
        "{shown}"
    );
    // Nothing to install, and none of the closing lines of the other
    // verdicts.
    for never in [
        "pip install",
        "conda install",
        "none of the",
        "does not recognise",
    ] {
        assert!(!shown.contains(never), "{never}: {shown}");
    }
}

const WHO_HOLDS: Option<&str> =
    Some("nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv");

/// pytorch/pytorch#59778 (the older form, with the capacity in brackets)
/// and pytorch/pytorch#16417 (torch 2.x's form), both printed by
/// c10/cuda/CUDACachingAllocator.cpp.
#[test]
fn torch_out_of_memory() {
    not_environment(
        "CUDA out of memory. Tried to allocate 2.26 GiB (GPU 0; 6.00 GiB total capacity; \
         781.59 MiB already allocated; 3.03 GiB free; 1.24 GiB reserved in total by PyTorch)",
        "out-of-memory",
        WHO_HOLDS,
    );
    not_environment(
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.00 MiB. GPU 0 has \
         a total capacity of 23.65 GiB of which 11.06 MiB is free. Including non-PyTorch memory, \
         this process has 23.60 GiB memory in use. Of the allocated memory 22.90 GiB is allocated \
         by PyTorch, and 194.87 MiB is reserved by PyTorch but unallocated.",
        "out-of-memory",
        WHO_HOLDS,
    );
}

/// PaddlePaddle/PaddleGAN#587: paddle/fluid/memory/allocation/cuda_allocator.cc.
#[test]
fn paddle_out_of_memory() {
    not_environment(
        "Out of memory error on GPU 0. Cannot allocate 3.621826GB memory on GPU 0, 21.184814GB \
         memory has been allocated and available memory is only 2.814575GB. Please check whether \
         there is any other process using GPU 0. 1. If yes, please stop them, or start \
         PaddlePaddle on another GPU. 2. If no, please decrease the batch size of your model.",
        "out-of-memory",
        WHO_HOLDS,
    );
}

/// evo-design/evo#136: cudaErrorIllegalAddress, with PyTorch's hints.
#[test]
fn illegal_memory_access_is_a_kernel_fault() {
    not_environment(
        "RuntimeError: CUDA error: an illegal memory access was encountered\nCUDA kernel errors \
         might be asynchronously reported at some other API call, so the stacktrace below might \
         be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with \
         `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        "kernel-fault",
        Some("export CUDA_LAUNCH_BLOCKING=1"),
    );
}

/// VICO-UoE/MTPSL#3 (torch 1.12.0+cu116): aten's matrix product check.
#[test]
fn shapes_that_cannot_be_multiplied_are_the_codes() {
    not_environment(
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x2 and 6x64)",
        "user-code",
        None,
    );
}

/// kr-colab/ReLERNN#63 (TensorFlow 2.15's import): the three duplicate
/// factory warnings, one row, said once.
#[test]
fn duplicate_factory_warnings_are_harmless() {
    let log = "2025-02-09 09:37:32.334610: E external/local_xla/xla/stream_executor/cuda/\
               cuda_dnn.cc:9261] Unable to register cuDNN factory: Attempting to register factory \
               for plugin cuDNN when one has already been registered\n\
               2025-02-09 09:37:32.334667: E external/local_xla/xla/stream_executor/cuda/\
               cuda_fft.cc:607] Unable to register cuFFT factory: Attempting to register factory \
               for plugin cuFFT when one has already been registered\n\
               2025-02-09 09:37:32.335925: E external/local_xla/xla/stream_executor/cuda/\
               cuda_blas.cc:1515] Unable to register cuBLAS factory: Attempting to register \
               factory for plugin cuBLAS when one has already been registered";
    not_environment(log, "harmless-warning", None);
}

/// A harmless warning before a real error does not hide it: the factory
/// line of kr-colab/ReLERNN#63 followed by the cuInit line TensorFlow
/// 2.16.1 printed on this project's machine (no driver); the error about
/// the driver decides (exit 1, not 3).
#[test]
fn a_real_error_in_the_same_log_decides() {
    let sb = Sandbox::new();
    let env = torch_cu128(&sb.path("envs/torch"));
    let log = "2025-02-09 09:37:32.334610: E external/local_xla/xla/stream_executor/cuda/\
               cuda_dnn.cc:9261] Unable to register cuDNN factory: Attempting to register factory \
               for plugin cuDNN when one has already been registered\n\
               2026-12-06 02:50:37.342234: I external/local_xla/xla/stream_executor/cuda/\
               cuda_driver.cc:280] failed call to cuInit: UNKNOWN ERROR (303)";
    let (json, code) = explain(&sb, &env.prefix, log, &[]);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(json["verdict"], "cause", "{json:#}");
    let known = known(&json);
    assert!(
        known.contains(&"TensorFlow could not load the CUDA driver library"),
        "{json:#}"
    );
    assert!(
        known.contains(
            &"TensorFlow registered its cuDNN, cuFFT or cuBLAS plugin twice: a harmless warning"
        ),
        "{json:#}"
    );
}
