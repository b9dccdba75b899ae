"""One framework's GPU work through its own entry points, and which CUDA
libraries the process really mapped (/proc/self/maps): the ground truth
tests/gpu/run.sh compares envhook's verdicts with.

usage: python probe.py torch|jax|cupy|numba   (prints one JSON object)
"""
import json
import re
import sys
import traceback

CUDA = re.compile(
    r"/lib(cuda|cudart|cublas|cublasLt|cudnn[a-z_]*|cufft|curand|cusolver|cusparse|"
    r"cusparseLt|nvrtc|nvrtc-builtins|nvJitLink|nccl|cupti|nvvm|nvshmem_host|cufile)"
    r"(\.alt)?\.so[.0-9]*$"
)


def mapped():
    seen = []
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6:
                path = parts[5].strip()
                if CUDA.search(path) and path not in seen:
                    seen.append(path)
    return seen


def torch_work():
    import torch

    x = torch.randn(512, 512, device="cuda")
    y = x @ x
    img = torch.randn(1, 3, 32, 32, device="cuda")
    w = torch.randn(8, 3, 3, 3, device="cuda")
    torch.nn.functional.conv2d(img, w)
    torch.fft.fft(x)
    torch.linalg.solve(x + 512 * torch.eye(512, device="cuda"), y)
    torch.cuda.synchronize()
    extensions = {}
    try:
        # An extension built against torch's own libraries, where installed.
        import torchvision
        import torchvision.ops

        boxes = torch.tensor([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]], device="cuda")
        keep = torchvision.ops.nms(boxes, torch.tensor([0.9, 0.8], device="cuda"), 0.5)
        extensions["torchvision"] = "%s nms %s" % (torchvision.__version__, keep.tolist())
    except ImportError:
        pass
    return {
        "extensions": extensions,
        "version": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "nccl": ".".join(map(str, torch.cuda.nccl.version())),
        "device": torch.cuda.get_device_name(),
    }


def jax_work():
    import jax
    import jax.numpy as jnp

    devices = jax.devices()
    if devices[0].platform != "gpu":
        # JAX falls back to the CPU with a warning when its CUDA plugin
        # does not load: for this tier that is a failure.
        raise RuntimeError("JAX runs on %s" % devices[0].platform)
    x = jnp.ones((512, 512))
    (x @ x).block_until_ready()
    lhs = jnp.ones((1, 3, 32, 32))
    rhs = jnp.ones((8, 3, 3, 3))
    jax.lax.conv(lhs, rhs, (1, 1), "SAME").block_until_ready()
    jnp.fft.fft(x).block_until_ready()
    jnp.linalg.inv(x + 512 * jnp.eye(512)).block_until_ready()
    return {
        "version": jax.__version__,
        "devices": [str(d) for d in devices],
        "platform": devices[0].platform,
    }


def cupy_work():
    # CuPy's own entry point (its __getattr__ preloads through
    # cuda-pathfinder), not importlib of the submodule.
    from cupy_backends.cuda.libs import cublas  # noqa: F401
    import cupy as cp

    a = cp.random.rand(512, 512)
    a @ a
    cp.fft.fft(a)
    cp.linalg.inv(a + 512 * cp.eye(512))
    k = cp.RawKernel(
        r'extern "C" __global__ void one(float* x) { x[threadIdx.x] = 1.0f; }', "one"
    )
    out = cp.zeros(32, dtype=cp.float32)
    k((1,), (32,), (out,))
    cp.cuda.Device().synchronize()
    return {"version": cp.__version__, "one": float(out.sum())}


def numba_work():
    import numpy as np
    from numba import cuda

    @cuda.jit
    def inc(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    a = cuda.to_device(np.zeros(64))
    inc[1, 64](a)
    cuda.synchronize()
    return {"sum": float(a.copy_to_host().sum())}


def main():
    work = {"torch": torch_work, "jax": jax_work, "cupy": cupy_work, "numba": numba_work}
    name = sys.argv[1]
    out = {"framework": name}
    try:
        out["result"] = work[name]()
        out["ok"] = True
    except BaseException as e:  # noqa: BLE001 - the failure is the finding
        out["ok"] = False
        out["error"] = "".join(traceback.format_exception_only(type(e), e)).strip()[-2000:]
    out["maps"] = mapped()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
