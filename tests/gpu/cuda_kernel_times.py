"""Per-kernel GPU times of a callable through torch.profiler (CUPTI sees every kernel in the process,
ONNX Runtime's too); shared by kernel_profile_model.py and kernel_profile_layer.py."""
import collections

import torch
from torch.profiler import ProfilerActivity, profile


def kernel_times(fn, runs: int = 5, name_width: int = 90, strip: str = ""):
    """{kernel name: (count, total us)} per call of fn, averaged over `runs` profiled calls after 3 warm
    ones; names cut to name_width characters after removing `strip`."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    out = collections.defaultdict(lambda: [0, 0.0])
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA and ev.device_time > 0:
            name = (ev.name.replace(strip, "") if strip else ev.name)[:name_width]
            out[name][0] += 1
            out[name][1] += ev.device_time
    return {k: (c / runs, us / runs) for k, (c, us) in out.items()}
