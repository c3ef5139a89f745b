#!/usr/bin/env python3
"""Rewrites a library's expectations file from a report of a run without it.

    update.py LIBRARY REPORT.json      (writes LIBRARY.txt, the file its run in libraries/ names)
    update.py jax-mesh4 REPORT.json    (an adapter with rules of its own for another library)

Run the suite with no expectations first, e.g.
    devspec run --adapter jax --expectations /dev/null --report jax-run.json
then `update.py jax jax-run.json`. Every case that did not pass or skip is written with the
reason of the first rule below that matches its id and the runner's account of the failure;
a failure that no rule explains is printed and the file is left unchanged (exit 1), so each
entry's reason is written by a person who looked at what the library does. Standard-library
Python.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import sys
from typing import Any

# Per library, ordered rules: (case id glob, regular expression searched in the runner's
# reason for the failure, the reason written into the file).
R: dict[str, list[tuple[str, str, str]]] = {
"numpy": [
 ("fn.fft.*fftfreq.*.expect-*", "takes no keyword dtype", "numpy.fft.fftfreq and numpy.fft.rfftfreq (NumPy 2.4.6) are (n, d=1.0, device=None): no dtype=, which the standard adds in 2024.12"),
 ("fn.*.expect-float64", "not of the [$]type.*observed [-0-9.e]+$", "a NumPy reduction over every axis of a float64 array returns a numpy.float64, a subclass of Python float, not a 0-d array (numpy.sum(numpy.ones(3)) is numpy.float64; of float32 it is numpy.float32, which is not a float, and the adapter takes it as an array): the NumPy namespace is not the standard's, where every such result is an array"),
 ("signature.device.fft-*", "strings differ", "numpy.fft.fftfreq and numpy.fft.rfftfreq (NumPy 2.4.6) are (n, d=1.0, device=None): device may be given positionally, where the standard's signature puts it after `*` (keyword-only)"),
],
"array-api-strict": [
 ("fn.isin.*.kw-invert", "elements differ", "isin(x1, x2, invert=True) gives the same result as invert=False: array-api-strict 2.6.1 never passes invert on to NumPy (isin([3, -1, 2], [3, -1, 2, -4], invert=True) is [True, True, True])"),
 ("fn.broadcast_arrays.*.mixed-*", "returned a value", "broadcast_arrays of arrays on two devices returns every output on CPU_DEVICE instead of raising: array-api-strict 2.6.1 broadcasts through NumPy and wraps each result without its input's device, moving the arrays that were elsewhere (its meshgrid raises 'meshgrid inputs must all be on the same device')"),
 ("fn.astype.*.device-none", "different devices", "astype(x, dtype, device=None) puts the result on CPU_DEVICE: array-api-strict 2.6.1 hands an explicit None on to Array._new as the device (only an absent device= keeps x.device)"),
 ("fn.from_dlpack.*.device-none", "different devices", "from_dlpack(x, device=None) puts the result on CPU_DEVICE: it imports through numpy.from_dlpack and every array-api-strict device exports (kDLCPU, 0), so x's device is not kept"),
 ("dtypes.no-such-device.*", "returned a value", "the inspection namespace's dtypes(device='gpu:4096') and default_dtypes(device='gpu:4096') answer as for CPU_DEVICE (all 13 dtypes; float64 defaults): array-api-strict 2.6.1 never checks that device= is one of its devices"),
 ("copy.asarray.no-copy-other-device", "", "asarray(x, copy=False, device=D) of an array on another device returns a new Array on D sharing x's NumPy buffer instead of raising: every array-api-strict device lives in host memory, so no copy is needed"),
 ("copy.from-dlpack.no-copy-other-device", "", "from_dlpack(x, device=D, copy=False) of an array on another device succeeds without copying: array-api-strict devices share host memory and NumPy's from_dlpack needs no copy"),
 ("device-none.astype.*", "different devices", "astype(x, dtype, device=None) puts the result on CPU_DEVICE: array-api-strict 2.6.1 hands an explicit None on to Array._new as the device (only an absent device= keeps x.device)"),
 ("values.astype.no-copy.*", "different devices", "astype(x, x.dtype, copy=False, device=D) returns x itself, still on its own device: array-api-strict 2.6.1 returns x whenever copy=False and the dtype matches, before it looks at device="),
 ("device-none.from_dlpack", "different devices", "from_dlpack(x, device=None) puts the result on CPU_DEVICE: it imports through numpy.from_dlpack and every array-api-strict device exports (kDLCPU, 0), so x's device is not kept"),
 ("fn.linalg.*.opt-rtol-mixed*", "returned a value", "linalg.matrix_rank(x, rtol=r) and linalg.pinv(x, rtol=r) with r on another device than x return a result on x's device instead of raising: array-api-strict 2.6.1 checks the devices of x alone, never of an rtol array"),
 ("fn.searchsorted.*.opt-sorter-mixed*", "returned a value", "searchsorted(x1, x2, sorter=s) with s on another device than x1 and x2 returns a result on their device instead of raising: array-api-strict 2.6.1 compares the devices of x1 and x2, never of sorter"),
 ("power.dtype.can-cast.array.no-float64.*", "expected false, observed true", "can_cast(x, float64) with x on no_float64 or no_x64, devices whose dtypes(device=) list no float64, is True: array-api-strict 2.6.1 answers can_cast of an array from x.dtype by the complete promotion table, never from the graph of x's device (DEV-DT-3)"),
 ("power.dtype.result-type.no-float64.*", "returned a value where an error was expected", "result_type(x, float64) with x on no_float64 or no_x64, devices whose dtypes(device=) list no float64, is float64, a dtype those devices do not have: array-api-strict 2.6.1 promotes by the complete table whatever the arrays' device (DEV-DT-4)"),
 ("*", "different devices", "from_dlpack without device= puts the result on CPU_DEVICE: it imports through numpy.from_dlpack and every array-api-strict device exports (kDLCPU, 0), so x's device is not kept"),
],
"jax": [
 ("fn.meshgrid.*.mixed-*", "returned a value", "jnp.meshgrid of arrays on two devices returns each output on its own input's device instead of raising: jax 0.10.2 broadcasts each input alone and never compares the devices (its broadcast_arrays raises 'Received incompatible devices for jitted computation')"),
 ("fn.repeat.*.mixed-*", "returned a value", "jnp.repeat(x, repeats) with repeats an array on another device than x returns a result on x's device instead of raising: jax 0.10.2 reads repeats to the host (the result's size must be known) and never compares the devices"),
 ("exchange.refarray.opencl-host-copy", "unsupported device type", "jnp.from_dlpack decides from __dlpack_device__ ((kDLOpenCL, 0)) and raises TypeError before it calls __dlpack__, so the dl_device=(kDLCPU, 0) the exchange asks of refarray never comes to pass"),
 ("fn.array.setitem.*", "JAX arrays are immutable", "JAX arrays are immutable: x[key] = value raises TypeError (JAX's design; x.at[key].set(value) returns a new array instead), so __setitem__'s placement and values cannot be observed"),
 ("fn.from_dlpack.*.device-none", "different devices", "jnp.from_dlpack(x, device=None) puts the result on cpu:0: every JAX CPU device exports (kDLCPU, 0) whatever its id, so the import cannot tell cpu:1 from cpu:0"),
 ("scope.pop-without-push", "cannot express", "JAX's default-device scope is a context manager (jax.default_device), which cannot be left before it is entered: the request has no call in the library, so the library is never asked and no error of its own is observed"),
 ("signature.device.array-to-device", "", "jax.Array.to_device(self, device, *, stream=None) in jax 0.10.2 also takes device as a keyword; the standard's to_device(self, device, /, *, stream=None) makes it positional-only"),
 ("dlpack.export.default", "numbers differ", "x.__dlpack__() of an array on cpu:1 exports a tensor on (kDLCPU, 1) while x.__dlpack_device__() says (kDLCPU, 0): jax 0.10.2 reports device id 0 for every CPU device but exports with the device's own id"),
 ("dlpack.export.dl-device-none", "numbers differ", "x.__dlpack__(dl_device=None) of an array on cpu:1 exports a tensor on (kDLCPU, 1) while x.__dlpack_device__() says (kDLCPU, 0): jax 0.10.2 reports device id 0 for every CPU device but exports with the device's own id"),
 ("dlpack.export.own-device", "shares_memory", "x.__dlpack__(dl_device=x.__dlpack_device__()) of an array on cpu:1 copies: __dlpack_device__ says (kDLCPU, 0), which __dlpack__ reads as cpu:0, another device"),
 ("dlpack.export.*.d1", "numbers differ", "x.__dlpack__() of an array on cpu:1 exports a tensor on (kDLCPU, 1) while x.__dlpack_device__() says (kDLCPU, 0): jax 0.10.2 reports device id 0 for every CPU device but exports with the device's own id"),
 ("dlpack.export.default.d2", "numbers differ", "x.__dlpack__() of an array on cpu:2 exports a tensor on (kDLCPU, 2) while x.__dlpack_device__() says (kDLCPU, 0): jax 0.10.2 reports device id 0 for every CPU device but exports with the device's own id"),
 ("dlpack.export.own-device.d2", "shares_memory", "x.__dlpack__(dl_device=x.__dlpack_device__()) of an array on cpu:2 copies: __dlpack_device__ says (kDLCPU, 0), which __dlpack__ reads as cpu:0, another device"),
 ("dlpack.export.host-no-copy.on-host", "requires a copy", "x.__dlpack__(dl_device=(kDLCPU, 0), copy=False) of an array on cpu:1 raises ValueError ('requires a copy since the source device is CpuDevice(id=1)'), not BufferError, although x.__dlpack_device__() says (kDLCPU, 0)"),
 ("dtypes.no-such-device.*", "returned a value", "jax's inspection namespace answers dtypes(device='gpu:4096') and default_dtypes(device='gpu:4096') with the CPU answer (no float64 without x64) instead of raising: jax 0.10.2 does not check device= there"),
 ("sharding.shard.already-sharded.*", "", "jax.device_put of an array already sharded over a Mesh onto another NamedSharding re-shards it instead of raising (TG-SHARD-4): JAX has no rule against sharding a multi-device array"),
 ("sharding.shard.inplace.*", "", "JAX arrays are immutable: there is no shard_ that changes an array in place (TG-SHARD-3), so the adapter answers NotImplementedError"),
 ("sharding.ew.mismatched-axes.*", "", "an elementwise operation on operands split along different axes keeps the split of the first operand (XLA's sharding propagation), where TG-EW-2 takes the last distinct axis"),
 ("sharding.matmul.rows-and-inner.*", "", "matmul of x1 split along its rows with x2 split along the contracted axis keeps x1's split (XLA's sharding propagation), where TG-EW-2 applied to the product x1[..., n, 1, k] * x2T[..., 1, m, k] takes x2's axis, so the sum over it leaves the result replicated"),
 ("sharding.gather.to-longer-tuple.*", "IndivisibleError", "to(devices) keeps the array's PartitionSpec on the new Mesh, and JAX refuses 2 rows split over 3 devices (IndivisibleError), where tinygrad 0.14 replicates the array over the new tuple"),
 ("copy.from-dlpack.no-copy-other-device", "", "jnp.from_dlpack(x, device=cpu:0, copy=False) of an array on cpu:1 returns an array instead of raising: every JAX CPU device exports (kDLCPU, 0), so no device change is seen"),
 ("scalar.int.uint64-above-int64", "An overflow was encountered", "jax 0.10 parses a Python int operand as a weak int64: 2^63 raises OverflowError ('An overflow was encountered while parsing an argument to a jitted computation') even beside a uint64 array that holds it"),
 ("scalar.int.float64-above-int64", "An overflow was encountered", "jax 0.10 parses a Python int operand as a weak int64: 2^63 raises OverflowError even beside a float64 array that holds it"),
 ("fn.hypot.*.empty", "different devices", "jnp.hypot (jax 0.10.2) of two empty float32 arrays on cpu:1 gives an array on cpu:0, the default device (jnp.add of the same arrays stays on cpu:1, and hypot of non-empty ones too)"),
 ("fn.unique_*.*.empty", "different devices", "jnp.unique_all, unique_counts and unique_inverse (jax 0.10.2) of an empty array on cpu:1 give the inverse indices and the counts on cpu:0, the default device (the values and indices stay on cpu:1; of a non-empty array every output does)"),
 ("*", "different devices", "jnp.from_dlpack without device= puts the result on cpu:0: every JAX CPU device exports (kDLCPU, 0) whatever its id, so the import cannot tell cpu:1 from cpu:0"),
 ("*", "Received incompatible devices", "jnp.asarray/jnp.astype with device= of an array committed to another device raise 'Received incompatible devices for jitted computation' (the conversion runs under jit with the target device as a sharding constraint) instead of copying; x.to_device(d) works"),
],
"torch": [
 ("exchange.*.bool", "Bool type is not supported by dlpack|Unsupported code 6", "torch 1.13's DLPack has no bool: exporting a bool tensor raises RuntimeError ('Bool type is not supported by dlpack') and importing DLPack's kDLBool (code 6, added in DLPack 0.8) raises RuntimeError ('Unsupported code 6')"),
 ("exchange.numpy.from-peer.bool", "DLPack only supports signed/unsigned integers", "the peer, Debian's NumPy 1.24 beside torch, exports no bool through DLPack (BufferError 'DLPack only supports signed/unsigned integers, float and complex dtypes.'); torch 1.13 could not take one either"),
 ("fn.*", "Cannot copy out of meta tensor", "the second device is meta, whose tensors hold no data: reading values or copying them off meta raises NotImplementedError('Cannot copy out of meta tensor; no data!')"),
 ("fn.*", "the namespace has no |the library's array has no |takes no keyword ", "torch 1.13 has no array API namespace: its own namespace (and Tensor) lacks this function, method or keyword under the standard's name (array-api-compat maps it to torch's)"),
 ("fn.*", "with arguments from the 'Meta' backend", "torch 1.13 has no meta kernel for this operation (NotImplementedError 'Could not run ... with arguments from the Meta backend'): it cannot run on the second device, meta"),
 ("fn.searchsorted.*.opt-sorter*", "sorter must be a tensor of long dtype", "torch.searchsorted takes only an int64 sorter (RuntimeError 'sorter must be a tensor of long dtype but got dtype Int'), where the standard takes a sorter of any integer dtype"),
 ("fn.*mixed*", "returned a value where an error was expected", "torch 1.13 runs this operation on a cpu tensor and a meta tensor and returns a meta tensor instead of raising: dispatch picks the meta kernel, which does not check that its inputs share a device"),
 ("fn.*.scalar-*", "must be Tensor, not (float|bool)|invalid combination of arguments - got \\((float|bool)", "this torch 1.13 function takes no Python scalar for this argument (TypeError), which the standard allows from 2024.12"),
 ("fn.result_type.*", "invalid combination of arguments", "torch.result_type takes exactly two tensors or scalars, not a dtype (TypeError), where the standard's result_type takes arrays and dtypes"),
 ("fn.can_cast.*", "must be torch.dtype, not Tensor", "torch.can_cast takes two dtypes, not an array (TypeError), where the standard's can_cast takes an array or a dtype"),
 ("fn.clip.*", "At least one of 'min' or 'max' must not be None", "torch.clamp (torch.clip) refuses min=None and max=None together (RuntimeError), where the standard's clip returns x unchanged"),
 ("fn.flip.*", "missing 1 required positional arguments: \"dims\"", "torch.flip requires dims, where the standard's flip flips every axis when axis is None"),
 ("fn.array.getitem.*-index", "tensors used as indices must be long, byte or bool", "torch 1.13 indexes only with int64, uint8 or bool tensors: an int32 index array raises IndexError, where the standard takes any integer dtype"),
 ("fn.sort.*", "not of the [$]type", "torch.sort returns a named tuple (values, indices), where the standard's sort returns the sorted array"),
 ("fn.array.size.*.expect-*", "values differ", "torch 1.13's Tensor.size is a method: size() gives the shape (torch.Size([3])), not the standard's size, the number of elements (Tensor.numel())"),
 ("fn.meshgrid.*", "shapes differ", "torch.meshgrid (1.13) defaults to indexing='ij' (with a warning that the default will change), where the standard's default is 'xy': meshgrid of a [3] and a [2] tensor gives [3, 2] tensors, not [2, 3]"),
 ("fn.std.*", "differ by more than [$]close", "torch's std and var default to unbiased=True (correction=1), where the standard's correction defaults to 0: std of the [2, 3] input gives 1.2517, not 1.1426"),
 ("fn.var.*", "differ by more than [$]close", "torch's std and var default to unbiased=True (correction=1), where the standard's correction defaults to 0: var of the [2, 3] input gives 1.5667, not 1.3056"),
 ("fn.linalg.eig*.expect-*", "not of the [$]type", "torch.sort returns a named tuple (values, indices), where the standard's sort returns the sorted array: the case sorts the eigenvalues (the standard leaves their order unspecified) with the library's sort before it compares them"),
 ("fn.linalg.eig*.values", "not of the [$]type", "torch.sort returns a named tuple (values, indices), where the standard's sort returns the sorted array: the case sorts the eigenvalues (the standard leaves their order unspecified) before it compares them"),
 ("fn.nonzero.*", "the result of nonzero is not a tuple", "torch.nonzero returns one 2-d tensor of indices, not a tuple of arrays (torch.nonzero(x, as_tuple=True) is the standard's form)"),
 ("fn.equal.*", "not of the [$]type", "torch.equal is whole-tensor equality returning a Python bool, where the standard's equal is elementwise (torch.eq)"),
 ("oneflow.promotion.float32-plus-0d-complex128", "complex64", "torch 1.13 gives complex64 for a float32 tensor plus a 0-d complex128 tensor: its combine_categories keeps the dimensioned float's precision and only lifts the category, where the rule torch and OneFlow both document (a higher-category 0-d operand decides, sized for the 0-d operands) gives complex128"),
 ("promotion.category.divide.bool.bool.*", "expected \"bool\", observed \"float32\"", "torch 1.13 divides two bool tensors by true division in the default float dtype ([True, False] / [True, True] gives float32 [1., 0.]), as it divides integers; OneFlow 0.9.0, whose result the case checks, keeps bool by its category rules ([True, False] / [True, True] gives bool [True, False])"),
 ("promotion.category.subtract.*", "Subtraction, the `-` operator, with a bool", "torch refuses subtract when an operand is a bool tensor or a Python bool (RuntimeError 'Subtraction, the `-` operator, with a bool tensor is not supported'), before promotion; OneFlow's promotion rules (OF-PROM-1) state only the result dtype"),
 ("out.inplace.subtract.*", "Subtraction, the `-` operator, with a bool", "torch refuses subtract when an operand is a bool tensor or a Python bool (RuntimeError 'Subtraction, the `-` operator, with a bool tensor is not supported'), before promotion; x1 -= x2 with a bool x2 is OneFlow's in-place form, whose out= casting (OF-OUT-1) allows it"),
 ("values.*_like.to-default", "elements differ", "zeros_like, ones_like and full_like of a meta tensor with device='cpu' return a cpu tensor of uninitialised memory in torch 1.13 (zeros_like gave 1.4e-38, 0, -1.8e+06): the fill is skipped, while empty_like(x, device='cpu').fill_(v) is right"),
 ("*", "Cannot copy out of meta tensor", "the second device is meta, whose tensors hold no data: reading values or copying them off meta raises NotImplementedError('Cannot copy out of meta tensor; no data!')"),
 ("*", "Unknown device type meta for Dlpack", "a meta tensor has no DLPack device: __dlpack_device__ raises ValueError('Unknown device type meta for Dlpack')"),
 ("*", "from_dlpack\\(\\) got an unexpected keyword", "torch.from_dlpack in torch 1.13 takes no device= or copy= keyword (TypeError); those arguments came with the 2023.12 array API"),
 ("mixed.matmul", "", "torch.matmul(cpu tensor, meta tensor) returns a meta tensor instead of raising: dispatch picks the meta kernel, which does not check that its inputs share a device"),
 ("mixed.stack*", "", "torch.stack of cpu and meta tensors returns a meta tensor instead of raising: dispatch picks the meta kernel, which does not check that its inputs share a device"),
 ("device-string.listed-device.other.type", "", "the second device is meta, a torch device type outside the draft's cpu, gpu and tpu"),
 ("*", "Torch not compiled with CUDA enabled", "device='cuda:0' on a build without CUDA raises AssertionError('Torch not compiled with CUDA enabled') when memory is allocated, not ValueError"),
 ("device-string.invalid.unknown-*", "returned a value", "torch.device accepts every device type torch knows (cuda, xpu, opencl, meta) whether or not one is present; availability is checked only when memory is allocated"),
 ("device-string.*", "device type at start of device string: (gpu|tpu|GPU|TPU|CPU|Cpu|gPu|cpux)", "torch.device raises RuntimeError('Expected one of cpu, cuda, ... device type at start of device string'), not ValueError, for a type name it does not know: torch has no 'gpu' or 'tpu' type and type names are case-sensitive"),
 ("device-string.*", "Invalid device string", "torch.device's grammar is [A-Za-z_]+(:(0|[1-9][0-9]*))?, and anything else (signs, leading zeros, spaces, a second colon, other separators) raises RuntimeError('Invalid device string'), not ValueError"),
 ("device-string.*", "Device string must not be empty", "torch.device('') raises RuntimeError('Device string must not be empty'), not ValueError"),
 ("device-string.*", "Could not parse device index", "an index beyond int32 makes torch.device raise RuntimeError('Could not parse device index'), not ValueError"),
 ("oneflow.device.*", "device type at start of device string", "torch has no 'gpu' device type (devspec's name for an accelerator, which OneFlow and torch both call 'cuda'; the torch adapter passes the case's strings on as they are): torch.device('gpu:1'), torch.device('gpu', 0) and device='gpu:0' raise RuntimeError('Expected one of cpu, cuda, ... device type at start of device string')"),
 ("oneflow.device.cpu-equals-cpu0", "values differ", "torch.device('cpu') == torch.device('cpu', 0) is False in torch: a device without an index differs from one with index 0, where OneFlow's bare device is the current one (index 0) and equals it"),
 ("oneflow.device.cpu-type", "observed null", "torch.device('cpu') has index None, not 0: a torch device has an index only where one is written"),
 ("oneflow.device.legacy-ordinal", "observed \"cuda\"", "torch.device(1) is cuda:1: torch's accelerator type is named cuda, not gpu"),
 ("oneflow.device.get-device-cpu", "returned a value", "Tensor.get_device() of a CPU tensor returns -1 instead of raising"),
],
"tinygrad": [
 ("fn.array.size.*.expect-*", "values differ", "tinygrad 0.14's Tensor.size is torch's size(dim=None), a method giving the shape ((3,) for a [3] array), not the standard's size, the number of elements"),
 ("fn.meshgrid.*", "shapes differ", "tinygrad 0.14's Tensor.meshgrid defaults to indexing='ij', where the standard's default is 'xy': meshgrid of a [3] and a [2] array gives [3, 2] arrays, not [2, 3]"),
 ("fn.acos.*.expect-float64", "differ by more than [$]close", "tinygrad 0.14's acos of float64 is accurate to float32 only: acos(0.5) gives 1.0471975364693114, 1.5e-8 from 1.0471975511965979 (its float32 result passes)"),
 ("fn.asin.*.expect-float64", "differ by more than [$]close", "tinygrad 0.14's asin of float64 is accurate to float32 only: asin(0.5) gives 0.5235987903255853, 1.5e-8 from 0.5235987755982989 (its float32 result passes)"),
 ("fn.atan.*.expect-float64", "differ by more than [$]close", "tinygrad 0.14's atan of float64 is accurate to float32 only (atan(0.5) is 1.4e-8 off; its float32 result passes)"),
 ("fn.std.*", "differ by more than [$]close", "tinygrad 0.14's std and var take correction=1 by default (torch's unbiased estimate), where the standard's default is 0: std of the [2, 3] input gives 1.2517, not 1.1426, and of one element NaN"),
 ("fn.var.*", "differ by more than [$]close", "tinygrad 0.14's std and var take correction=1 by default (torch's unbiased estimate), where the standard's default is 0: var of the [2, 3] input gives 1.5667, not 1.3056, and of one element NaN"),
 ("fn.meshgrid.*.mixed-*", "returned a value", "Tensor.meshgrid of tensors on two devices returns each output on its own input's device instead of raising: tinygrad 0.14 expands each input alone and never compares the devices"),
 ("fn.repeat.*", "__bool__ on Tensor is not defined", "Tensor.repeat takes its repeats as ints only (it tiles the tensor, as torch's repeat does): a repeats array raises TypeError('__bool__ on Tensor is not defined'), where the standard's repeat takes an int or an array"),
 ("fn.*", "the namespace has no |the library's array has no |takes no keyword ", "tinygrad 0.14 has no namespace of the standard's functions: they are Tensor's (static ones and methods), and Tensor lacks this one under the standard's name, or this keyword (divide is Tensor.div, concat Tensor.cat, permute_dims Tensor.permute, squeeze's axis is dim; arange, linspace and eye take no device)"),
 ("fn.*", "the library lacks dtype complex", "tinygrad 0.14 has no complex dtype (complex64, complex128)"),
 ("fn.array.bool.*", "__bool__ on Tensor is not defined", "Tensor.__bool__ raises TypeError('__bool__ on Tensor is not defined') also for a 0-d tensor, where the standard's __bool__ converts a 0-d array to a Python bool"),
 ("fn.array.*etitem.*-mask*", "index dtype dtypes.bool is not supported", "tinygrad 0.14 takes no boolean mask as an index: x[mask] and x[mask] = v raise IndexError('index dtype dtypes.bool is not supported')"),
 ("fn.*.scalar-x1", "object has no attribute '_(binop|broadcasted)'", "tinygrad's functions are Tensor methods, so a Python scalar cannot be the first operand: Tensor.add(2.5, x) raises AttributeError ('float' object has no attribute '_binop'), where the standard takes a scalar for x1 from 2024.12 (the operator 2.5 + x works)"),
 ("fn.clip.*", "at least one of 'min_' or 'max_' must not be None", "Tensor.clip refuses min and max both None (RuntimeError), where the standard's clip(x) returns x's values"),
 ("fn.flip.*", "missing 1 required positional argument: 'axis'", "Tensor.flip requires axis (TypeError without it), where the standard's flip flips every axis when axis is None"),
 ("fn.nonzero.*", "the result of nonzero is not a tuple", "Tensor.nonzero returns one 2-d tensor of indices (a row per nonzero element), not a tuple of arrays, one per axis"),
 ("fn.sort.*", "not of the [$]type", "Tensor.sort returns a tuple (values, indices), where the standard's sort returns the sorted array"),
 ("mixed.*", "elements differ", "a mixed-device op that fails loses its lazy inputs: after (x - y).realize() raises RuntimeError('all buffers must be on the same device'), x, created from a list and not yet realised, reads [0, 0, 0] or another buffer's earlier contents instead of its own values"),
 ("scope.pop-without-push", "cannot express", "tinygrad's default-device scope is a context manager (tinygrad's Context(DEV=...)), which cannot be left before it is entered: the request has no call in the library, so the library is never asked and no error of its own is observed"),
 ("device-none.*", "got an unexpected keyword argument 'device'", "Tensor.arange, Tensor.linspace and Tensor.eye (OpMixin in tinygrad 0.14) take no device= keyword: TypeError"),
 ("creation.*", "got an unexpected keyword argument 'device'", "Tensor.arange, Tensor.linspace and Tensor.eye (OpMixin in tinygrad 0.14) take no device= keyword: TypeError"),
 ("*", "observed null", "tinygrad builds arange, linspace, eye and Python-scalar tensors as device-less constants: .device is None (Tensor(2.5, device=D) drops D) until they meet a placed tensor"),
 ("like.zero-d.inherits", "", "Tensor(3, device=D) is a device-less constant (device= is dropped), so ones_like of it lands on the default device"),
 ("scope.explicit-device-wins", "", "Context(DEV='CPU:1') names a backend and a renderer, not a device index: tinygrad reads the '1' as a renderer and opening the device raises RuntimeError(\"CPU has no renderer '1'\")"),
 ("scope.*", "different devices", "Context(DEV='CPU:1') names a backend and a renderer, not a device index: the default device stays 'CPU' ('CPU:1' is Target(device='CPU', renderer='1'))"),
 ("device-string.kw.rejected.upper-case", "", "'CPU' is tinygrad's own canonical device name, so device='CPU' is accepted"),
 ("device-string.*", "No module named 'tinygrad.runtime.ops_", "tinygrad validates no device name: an unknown one fails only when its backend is loaded, with ModuleNotFoundError, not ValueError"),
 ("device-string.*", "failed to load library cuda", "tinygrad validates no device name: 'cuda:0' fails only when the CUDA backend is opened, with AttributeError('failed to load library cuda'), not ValueError"),
 ("device-string.kw.rejected.*", "returned a value", "Device.canonicalize validates nothing and creation is lazy: zeros(2, device=NAME) returns a tensor on NAME as given without opening the device, and an unknown or malformed name fails only when the tensor is realised (device='cpu\\x00': ModuleNotFoundError, no module 'tinygrad.runtime.ops_cpu\\x00')"),
 ("device-string.invalid.*", "returned a value", "Device.canonicalize validates nothing: every string is accepted (upper-cased, ':0' dropped) and fails only when the device is opened"),
 ("device-string.*", "strings differ|missing from the result", "tinygrad's devices are plain canonical strings ('cpu:0' -> 'CPU', 'gpu:1' -> 'GPU:1'): upper-case, no ':0', and no type or index fields"),
],
"ivy": [
 ("fn.array.dtype.*.expect-*", "expected an object", "with the NumPy backend an Ivy array's dtype is an ivy.FloatDtype (a str subclass), which the adapter gives as its name, a string (\"float32\"), not a dtype object"),
 ("fn.array.shape.*.expect-*", "a Shape, which the protocol cannot carry", "an Ivy array's shape is an ivy.Shape (ivy.Shape(2, 3)), neither a tuple nor a list, which the Python adapter does not carry (origin adapter)"),
 ("fn.linalg.eig.*.expect-*", "strings differ", "ivy.eig (NumPy backend) of a real symmetric matrix gives real eigenvalues and vectors (float32 of a float32 matrix), where the standard's eig always returns a complex dtype"),
 ("fn.*vecdot.*.expect-*", "shapes differ", "ivy.vecdot of two [2, 3] arrays gives shape [2, 2], not the standard's [2], the dot products of matching rows"),
 ("fn.count_nonzero.*.expect-*", "none of [$]in", "ivy.count_nonzero of a float32 array gives a float32 count, where the standard's count_nonzero gives the default integer dtype"),
 ("fn.*", "the namespace has no |the library's array has no |takes no keyword ", "Ivy 1.0.0.5 lacks this function, method or keyword of the standard under its name (no isdtype, no cumulative_sum, no fft namespace)"),
 ("scope.pop-without-push", "cannot express", "ivy's default-device scope is a context manager (ivy.DefaultDevice), which cannot be left before it is entered: the request has no call in the library, so the library is never asked and no error of its own is observed"),
 ("signature.device.array-to-device", "", "ivy.Array.to_device(self, device, *, stream=None, out=None) takes device positional-or-keyword: neither positional-only, as the standard's to_device(self, device, /, *, stream=None), nor keyword-only, as Ivy's own rule for device arguments"),
 ("util.arrays-on-device.*", "", "ivy.get_all_ivy_arrays_on_dev tests each object with `obj is ivy.Array` (the class itself) instead of isinstance, so it never finds an array and always answers an empty Container"),
 ("device-names.*", "missing from the result", "ivy.Device is a str subclass with no type or index attribute: only the string itself describes the device"),
 ("device-string.kw.rejected.*", "returned a value", "with the NumPy backend Ivy maps every device string to 'cpu' before any check, so device='cuda:0', 'CPU' or 'gpu:4096' creates the array on cpu (with a logged warning for gpu) instead of raising"),
 ("device-string.to-device.rejected", "", "with the NumPy backend ivy.to_device maps the target to 'cpu' before its GPU check, so to_device(x, 'gpu:4096') returns x instead of raising"),
 ("device-string.invalid.empty", "", "ivy.Device('') is accepted: the empty string skips validation"),
 ("device-string.invalid.embedded-nul", "", "ivy.Device never checks the separator (the fourth character): 'gpu\\x000', a NUL where ':' goes, is accepted as a gpu device"),
 ("device-string.invalid.*-separator", "", "ivy.Device never checks the separator (the fourth character): 'gpuX0' and 'gpu-0' are accepted"),
 ("device-string.*", "raised Exception", "ivy.Device raises IvyException, a direct subclass of Exception (not of ValueError), for a malformed name: a type outside gpu/tpu/cpu, or an index that fails str.isnumeric (empty, signed, hex, '1_0', '0 ', 'gpu' without index)"),
 ("device-string.open.*", "missing from the result", "ivy.Device is a str subclass with no type or index attribute, and accepts leading zeros, Unicode digits and any index size (str.isnumeric)"),
 ("device-string.*", "missing from the result", "ivy.Device is a str subclass with no type or index attribute: only the string itself describes the device"),
 ("device-string.cpu.describe", "", "ivy.Device is a str subclass with no type or index attribute"),
],
}


# jax-mesh4 (JAX playing 4 ranks, spec/decisions.md "OneFlow devices and global arrays"): the
# global-array cases' failures, from what JAX's Mesh, NamedSharding and explicit sharding do;
# every other case is the jax adapter's and fails for the jax adapter's reasons.
_SUM_SPLIT = ("JAX's sum over a dim split along a mesh axis reduces across the devices: the "
              "result is replicated along that axis, each device holding the whole sum, where "
              "OneFlow's signature leaves partial_sum, each rank holding its own partial sum; "
              "the global value agrees")
R["jax-mesh4"] = [
 ("oneflow.sbp.partial-from-value.*", "device_indices_map doesn't work with unreduced", "jax 0.10.2's device_put of a whole value into a NamedSharding with an unreduced (partial_sum) mesh axis raises NotImplementedError ('device_indices_map doesn't work with unreduced'): JAX makes an unreduced array only from per-device pieces or as a result, never from one value"),
 ("oneflow.sbp.broadcast-from-differing-locals.*", "elements differ", "jax.make_array_from_single_device_arrays takes each device's piece as given: pieces that differ under a replicated sharding are kept as they are (rank r reads its own [r, r]) where OneFlow's to_global broadcasts rank 0's piece, and JAX has no rule that would refuse them"),
 ("oneflow.placement.bad-duplicate", "returned a value", "jax.sharding.Mesh accepts a device listed twice (a mesh of cpu:0, cpu:1, cpu:1, cpu:2 is built): JAX does not check a mesh's devices for duplicates, where OneFlow refuses a placement with a rank twice (OF-PL-2)"),
 ("oneflow.placement.bad-empty", "returned a value", "jax.sharding.Mesh accepts an empty device array (printed Mesh()): JAX does not refuse a mesh of no devices, where OneFlow refuses a placement of no ranks (OF-PL-2)"),
 ("oneflow.placement.bad-outside", "cannot express", "a placement naming rank 4 cannot be written in JAX: its ranks are device objects, and there is no fifth device to name, so JAX is never asked and its refusal (OneFlow's, OF-PL-2) is not observed"),
 ("oneflow.placement.bad-ragged", "cannot express", "ragged rows cannot be written as a JAX Mesh, which takes an n-dimensional array of devices: JAX is never asked, so its refusal (OneFlow's, OF-PL-2) is not observed"),
 ("oneflow.placement.order", "values differ", "a jax.sharding.Mesh is its devices in order: the mesh of cpu:3, cpu:2, cpu:1, cpu:0 differs from that of cpu:0 .. cpu:3, where OneFlow keeps a placement's ranks as a set and sorts them (OF-PL-1 speaks of the group of ranks)"),
 ("oneflow.placement.*", "strings differ", "JAX prints a device mesh as Mesh('p0': 4, axis_types=(Explicit,)), its axis names and sizes without the devices, not OneFlow's oneflow.placement(type=\"cpu\", ranks=[...]); the type and the mesh shape agree"),
 ("oneflow.sbp.op.*", "produces an illegally sharded result", "JAX's explicit sharding refuses an elementwise operation on operands split along different dims (ShardingTypeError: 'illegally sharded result') and leaves the reshard to the caller, where OneFlow converts an operand itself"),
 ("oneflow.sbp.op.add.*", "unreduced while", "JAX refuses to add an unreduced (partial_sum) operand to one that is not (ShardingTypeError: 'there will be implicit communication'): it never reduces implicitly, where OneFlow converts the operands"),
 ("oneflow.sbp.op.*", "unreduced rule for (sub|div) is not implemented", "jax 0.10.2 has no unreduced rule for subtract and divide (NotImplementedError 'unreduced rule for sub/div is not implemented'): an unreduced (partial_sum) operand cannot enter them, where OneFlow converts it"),
 ("oneflow.sbp.op.multiply.*", "should be reduced along the same axes", "JAX multiplies an unreduced (partial_sum) operand only by one whose PartitionSpec marks the same mesh axes `reduced`; a plainly replicated or split operand raises ShardingTypeError, where OneFlow's signature (partial_sum, broadcast) gives partial_sum and the other pairs are converted"),
 ("oneflow.sbp.op.multiply.*", "bilinear", "JAX refuses to multiply two unreduced (partial_sum) operands (ShardingTypeError: 'mul is bilinear'), where OneFlow converts them first"),
 ("oneflow.sbp.sum.s0.all", "", _SUM_SPLIT),
 ("oneflow.sbp.sum.s0.axis0", "", _SUM_SPLIT),
 ("oneflow.sbp.sum.s1.all", "", _SUM_SPLIT),
 ("oneflow.sbp.sum.s1.axis1", "", _SUM_SPLIT),
 ("oneflow.sbp.sum.mesh.s0-s1.*", "", "on the 2 x 2 mesh: " + _SUM_SPLIT),
 ("oneflow.sbp.sum.mesh.p-s0.all", "", "on the 2 x 2 mesh, dim 0 split along p1 and p0 unreduced: JAX reduces across p1 and keeps p0 unreduced; " + _SUM_SPLIT),
 ("oneflow.sbp.sum.mesh.p-s0.axis0", "", "on the 2 x 2 mesh, dim 0 split along p1 and p0 unreduced: JAX reduces across p1 and keeps p0 unreduced; " + _SUM_SPLIT),
 ("oneflow.sbp.sum.mesh.b-s1.all", "", "on the 2 x 2 mesh: " + _SUM_SPLIT),
 ("oneflow.sbp.sum.mesh.b-s1.axis1", "", "on the 2 x 2 mesh: " + _SUM_SPLIT),
 ("oneflow.sbp.*", "strings differ", "JAX prints an array's sharding as a PartitionSpec (here each mesh axis's part of it, e.g. P('p0', None), P(None, unreduced={'p0'})), not OneFlow's oneflow.sbp.split(dim=0) or oneflow.sbp.partial_sum; the value and every device's piece agree"),
 *R["jax"],
 ("oneflow.sbp.uneven.*", "does not evenly divide the dimension size", "jax 0.10.2 refuses a NamedSharding whose mesh axis does not divide the dimension (ValueError 'Sharding spec ... implies that array axis 0 is partitioned 4 times, but does not evenly divide the dimension size 5'): JAX has no uneven split, where devspec reads OF-SBP-2's 'evenly' as OneFlow's balanced cut (decisions.md, OneFlow itself 11)"),
 ("oneflow.sbp.fewer-rows.*", "does not evenly divide the dimension size", "jax 0.10.2 refuses a NamedSharding whose mesh axis does not divide the dimension (ValueError 'Sharding spec ... implies that array axis 0 is partitioned 4 times, but does not evenly divide the dimension size 3'): JAX has no uneven split, where devspec reads OF-SBP-2's 'evenly' as OneFlow's balanced cut, empty pieces included (decisions.md, OneFlow itself 11)"),
]

# OneFlow 0.9.0 itself (backends/oneflow.py): in one process (oneflow) and on 4 ranks
# (oneflow-4). "Contradicts its documentation" marks a place where OneFlow does otherwise than
# the seed (its own guide) states; the suite keeps judging against the statement there. Every
# entry these rules write is checked against plain OneFlow, without the adapter, by
# adapters/python/tests/oneflow_plain.py (test_oneflow.py runs it): a reason names the call
# and what OneFlow did, for the entry's own function and dtypes.
_OF_GPU = ("a tensor on cuda aborts OneFlow 0.9.0 on a machine without a CUDA driver (SIGABRT "
           "from a failed check: 'Check failed: cudaGetDevice(&saved_dev_id_) : CUDA driver "
           "version is insufficient'), instead of raising; the adapter translates the case's "
           "gpu:0 to OneFlow's cuda:0, and the device objects alone work without a GPU")
_OF_DTYPES = ("its documentation lists eight dtypes, bool, uint8, int8, int32, int64, float16, "
              "float32, float64 (OF-DT-1, OF-DT-3: no complex), and 0.9.0 has bfloat16 besides")
_OF_NO_DTYPE = "OneFlow 0.9.0 has no dtype \\g<dt>: " + _OF_DTYPES
_OF_BASE = ("OneFlow 0.9.0 has no array API namespace, and under the standard's name it has "
            "no %s: ")
# What OneFlow 0.9.0 lacks under the standard's name (neither oneflow.NAME, nor
# oneflow.linalg.NAME for linalg.NAME, nor Tensor.NAME exists), and what it has instead.
_OF_LACKS = {
    "asarray": "its conversions are oneflow.tensor and oneflow.as_tensor",
    "astype": "a cast is Tensor.to(dtype) or oneflow.cast",
    "bitwise_and": "Tensor has the & operator only",
    "bitwise_or": "Tensor has the | operator only",
    "bitwise_xor": "Tensor has the ^ operator only",
    "bitwise_invert": "Tensor has the ~ operator only, which refuses integers (fn.array.invert)",
    "bitwise_left_shift": "nor a shift under any name (Tensor has no <<)",
    "bitwise_right_shift": "nor a shift under any name (Tensor has no >>)",
    "broadcast_arrays": "torch's name, oneflow.broadcast_tensors, is its form",
    "can_cast": "nor any cast query",
    "result_type": "nor any promotion query (no promote_types either)",
    "isdtype": "nor any dtype-kind query",
    "conj": "nor a complex dtype (OF-DT-3)",
    "real": "nor a complex dtype (OF-DT-3)",
    "copysign": "nor torch's copysign",
    "hypot": "nor torch's hypot",
    "nextafter": "nor torch's nextafter",
    "signbit": "nor torch's signbit",
    "count_nonzero": "nor torch's count_nonzero",
    "diff": "nor torch's diff",
    "isin": "nor torch's isin",
    "take": "nor torch's take (oneflow.index_select and oneflow.gather differ)",
    "positive": "nor torch's positive (Tensor has no unary + either)",
    "cumulative_sum": "torch's name, oneflow.cumsum, is its form",
    "cumulative_prod": "torch's name, oneflow.cumprod, is its form",
    "divide": "its name is oneflow.div",
    "multiply": "its name is oneflow.mul",
    "subtract": "its name is oneflow.sub",
    "less": "its name is oneflow.lt",
    "less_equal": "its name is oneflow.le",
    "remainder": "it has oneflow.fmod (the dividend's sign) and Tensor's % operator",
    "expand_dims": "torch's name, oneflow.unsqueeze, is its form",
    "moveaxis": "torch's name, oneflow.movedim, is its form",
    "permute_dims": "torch's name, oneflow.permute, is its form",
    "matrix_transpose": "oneflow.transpose of the last two axes is its form",
    "take_along_axis": "torch's name, oneflow.gather, is its form",
    "unstack": "torch's name, oneflow.unbind, is its form",
    "vecdot": "oneflow.dot takes 1-d tensors only",
    "unique_all": "torch's oneflow.unique is its one form",
    "unique_counts": "torch's oneflow.unique is its one form",
    "unique_inverse": "torch's oneflow.unique is its one form",
    "unique_values": "torch's oneflow.unique is its one form",
    "linalg.matmul": "oneflow.matmul is its form",
    "linalg.tensordot": "oneflow.tensordot is its form",
    "linalg.matrix_transpose": "oneflow.transpose of the last two axes is its form",
    "linalg.outer": "nor oneflow.outer",
    "linalg.vecdot": "oneflow.dot takes 1-d tensors only",
    "linalg.trace": "nor oneflow.trace",
    "linalg.matrix_power": "nor oneflow.matrix_power",
    **{"linalg." + f: "oneflow.linalg has only cross, diagonal, inv, matrix_norm, norm and "
       "vector_norm" for f in ("cholesky", "det", "eig", "eigh", "eigvals", "eigvalsh",
                                "matrix_rank", "pinv", "qr", "slogdet", "solve", "svd",
                                "svdvals")},
    **{"fft." + f: "OneFlow 0.9.0 has no fft module at all" for f in (
        "fftshift", "ifftshift", "ihfft", "rfft", "rfftn")},
    "Array.__complex__": "nor a complex dtype (OF-DT-3)",
    "Array.__lshift__": "nor a shift under any name",
    "Array.__rshift__": "nor a shift under any name",
    "Array.__pos__": "Tensor has no unary + (no oneflow.positive either)",
    "Array.mT": "Tensor.T reverses every axis, and oneflow.transpose is the matrix transpose",
    "Array.to_device": "Tensor.to(device) is its form",
}
# A keyword OneFlow's function names otherwise.
_OF_KEYWORDS = {
    "squeeze(axis=)": "oneflow.squeeze names its axis dim (squeeze(x, dim)): squeeze(x, "
                      "axis=0) raises TypeError ('unexpected keyword argument 'axis'')",
    "tensordot(axes=)": "oneflow.tensordot names its axes dims (torch's tensordot(a, b, "
                        "dims=2)): tensordot(a, b, axes=1) raises TypeError (unexpected "
                        "keyword argument 'axes')",
}
# A Python scalar a OneFlow function refuses, and how: the function and argument of the case
# (fn.NAME.v2024-12.scalar-x1 gives the scalar as the first argument).
_OF_SCALARS = {
    "atan2": ("input", "other"), "equal": ("input", "other"), "logaddexp": ("x", "y"),
    "maximum": ("input", "other"), "minimum": ("input", "other")}
_OF_CATEGORY = {"bool": 0, "uint8": 1, "int8": 1, "int32": 1, "int64": 1, "float16": 2,
                "float32": 2, "float64": 2}
_OF_SIGN = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/"}


_OF_REDUCE = ("OneFlow 0.9.0's reductions are torch's: the axis is dim and keepdims keepdim "
              "(oneflow.sum(x, axis=0) raises TypeError 'received an invalid combination of "
              "arguments'; oneflow.sum(x, dim=0, keepdim=True) works), and sum takes no dtype")


def _oneflow_rules() -> list[tuple[str, str, str]]:
    rules = [
        ("fn.*.kw-*", "lacks (?P<fn>[\\w.]+)[(](?P<kw>\\w+)=[)]: call raised NotImplementedError: [\\w.]+ takes no keyword", "oneflow.\\g<fn> takes no keyword \\g<kw> (its signature has no such parameter, or OneFlow 0.9.0 raises TypeError 'unexpected keyword argument'): where OneFlow has the option it is under torch's name (dim for axis, keepdim for keepdims, unbiased for correction, diagonal for k)"),
        ("fn.fft.*fftfreq.*", "lacks (?P<fn>fft[.]\\w+): call raised NotImplementedError: the namespace has no", (_OF_BASE % "oneflow.\\g<fn>") + "it has no fft module at all"),
        ("fn.array.and.*", "expected \"int32\", observed \"bool\"", "OneFlow 0.9.0's &, | and ^ of two int32 tensors give bool tensors (logical, not bitwise: oneflow.tensor([3, -1, 2]) & oneflow.tensor([-1, 2, -4]) is bool), where the standard's __and__, __or__ and __xor__ of integers are bitwise and keep the dtype"),
        ("fn.array.or.*", "expected \"int32\", observed \"bool\"", "OneFlow 0.9.0's &, | and ^ of two int32 tensors give bool tensors (logical, not bitwise), where the standard's __and__, __or__ and __xor__ of integers are bitwise and keep the dtype"),
        ("fn.array.xor.*", "expected \"int32\", observed \"bool\"", "OneFlow 0.9.0's &, | and ^ of two int32 tensors give bool tensors (logical, not bitwise), where the standard's __and__, __or__ and __xor__ of integers are bitwise and keep the dtype"),
        ("fn.array.mod.*", "elements differ", "OneFlow 0.9.0's % of floats takes the dividend's sign (C's fmod: 0.5 % -1.25 gives 0.5), where the standard's __mod__ takes the divisor's (-0.75), as Python does"),
        ("fn.array.size.*.expect-*", "values differ", "OneFlow 0.9.0's Tensor.size is torch's method: size() gives the shape (oneflow.Size([3])), not the standard's size, the number of elements"),
        ("fn.meshgrid.*", "shapes differ", "oneflow.meshgrid defaults to indexing='ij' (torch's), where the standard's default is 'xy': meshgrid of a [3] and a [2] tensor gives [3, 2] tensors, not [2, 3]"),
        ("fn.eye.*.kw-k", "invalid combination of arguments", "oneflow.eye takes no k (its signatures are (n, m=None, *, dtype, device, requires_grad) and the placement forms): no diagonal offset"),
        ("fn.atan2.*.empty", "the size of input should be > 0", "oneflow.atan2 refuses empty tensors (RuntimeError 'the size of input should be > 0, but got 0'), where the standard's elementwise functions take any shape"),
        ("fn.logaddexp.*.empty", "do not support 0-size tensor", "oneflow.logaddexp refuses empty tensors (RuntimeError 'logaddexp do not support 0-size tensor')"),
        ("fn.linalg.matrix_norm.*.kw-ord-nuc", "Not support ord is nuc", "oneflow.linalg.matrix_norm has no nuclear norm (NotImplementedError 'Not support ord is nuc')"),
        ("fn.searchsorted.*.kw-side-right", "invalid combination of arguments", "oneflow.searchsorted has no side keyword: its one signature is (sorted_sequence, values, out_int32=False, right=False)"),
        ("fn.argsort.*.empty", "signal 8", "oneflow.argsort of an empty tensor kills the process with SIGFPE (a division by the zero length), where the standard's argsort of an empty array is empty"),
        ("fn.sort.*.empty", "during call: killed by signal 8", "oneflow.sort of an empty tensor kills the process with SIGFPE, from a thread of OneFlow's virtual machine that runs the kernel after the call has returned; the adapter waits for OneFlow's eager work at the end of each operation, as a user who synchronises does, so it dies in the call (in plain OneFlow, at the first wait after the call: 10 of 10), where the standard's sort of an empty array is empty"),
        ("fn.*.kw-axis", "invalid combination of arguments", _OF_REDUCE),
        ("fn.*.kw-keepdims", "invalid combination of arguments", _OF_REDUCE),
        ("fn.sum.*.kw-dtype", "invalid combination of arguments", _OF_REDUCE),
        ("fn.prod.*.empty", "differ by more than [$]close", "oneflow.prod of an empty tensor gives 0.0, where the product of nothing is 1"),
        ("fn.std.*.zero-d", "different devices", "oneflow.std of a 0-d tensor on cpu:1 gives its result on cpu:0 (the default device), not on its input's device"),
        ("fn.var.*.zero-d", "reduce_axes.empty", "oneflow.var of a 0-d tensor raises RuntimeError (Check failed: !reduce_axes.empty()), where the standard's var over no axis of a 0-d array is 0"),
        ("fn.std.*", "differ by more than [$]close", "OneFlow 0.9.0's std and var default to unbiased=True (torch's correction=1), where the standard's correction defaults to 0: std of the [2, 3] input gives 1.2517, not 1.1426"),
        ("fn.var.*", "differ by more than [$]close", "OneFlow 0.9.0's std and var default to unbiased=True (torch's correction=1), where the standard's correction defaults to 0: var of the [2, 3] input gives 1.5667, not 1.3056"),
        ("fn.meshgrid.*.mixed-*", "returned a value", "oneflow.meshgrid of tensors on cpu:0 and cpu:1 returns each output on its own input's device (cpu:0 and cpu:1) instead of raising: OneFlow 0.9.0 expands each input alone and never compares the devices"),
    ]
    for name, instead in _OF_LACKS.items():
        what = ("Tensor." + name[6:]) if name.startswith("Array.") else "oneflow." + name
        rules.append(("fn.*", "lacks %s: call raised NotImplementedError: the (namespace|library's array) has no " % re.escape(name),
                      (_OF_BASE % what) + instead))
    for name, why in _OF_KEYWORDS.items():
        rules.append(("fn.*", "lacks %s: call raised NotImplementedError" % re.escape(name), why))
    rules += [
        ("fn.fft.*", "the library lacks dtype (?P<dt>complex\\d+)", "the case's input is \\g<dt>, and OneFlow 0.9.0 has no complex dtype (" + _OF_DTYPES + ") and no fft module at all"),
        ("fn.*", "the library lacks dtype (?P<dt>complex\\d+)", "the case's input is \\g<dt>, and OneFlow 0.9.0 has no complex dtype (" + _OF_DTYPES + "), nor conj, real or imag"),
        ("fn.array.invert.*", "is only implemented on integer and Boolean-type tensors", "OneFlow 0.9.0's ~ on an int32 tensor raises RuntimeError ('Check failed: ... == DataType::kBool: ~ (operator.invert) is only implemented on integer and Boolean-type tensors'): the check admits bool only, against its own message, and there is no bitwise_not"),
        ("fn.from_dlpack.*", "from_dlpack received an invalid capsule", "OneFlow 0.9.0's tensors have no __dlpack__, and oneflow.from_dlpack of a tensor takes it for a capsule: RuntimeError ('from_dlpack received an invalid capsule ... consumed only once'), where the standard's from_dlpack takes an array"),
        ("fn.floor_divide.*.scalar-x1", "received an invalid combination of arguments", "oneflow.floor_divide takes a Python scalar as its second argument only: floor_divide(1.5, x) raises TypeError ('received an invalid combination of arguments'; its signatures are (Tensor, Tensor) and (Tensor, Scalar)), which the standard allows from 2024.12"),
    ]
    for fn, (first, second) in _OF_SCALARS.items():
        for n, arg in (("1", first), ("2", second)):
            rules.append(("fn.%s.*.scalar-x%s" % (fn, n), "argument '%s' must be tensor" % arg,
                          "oneflow.%s takes no Python scalar as %s (TypeError \"argument '%s' must be tensor, not <class 'float'>\"), which the standard allows from 2024.12" % (fn, "its first argument" if n == "1" else "its second argument", arg)))
    rules += [
        ("fn.clip.*", "Requires one of argument `min` and `max`", "oneflow.clip(x) refuses min and max both None (RuntimeError 'Requires one of argument `min` and `max` at least in clip'), where the standard's clip(x) returns x's values"),
        ("fn.clip.*.opt-min*", "argument 'min' must be scalar", "oneflow.clip takes min only as a Python scalar: clip(x, min=tensor) raises TypeError (\"argument 'min' must be scalar, not <class 'oneflow.Tensor'>\"), where the standard's clip takes an array for it"),
        ("fn.clip.*.opt-max*", "argument 'max' must be scalar", "oneflow.clip takes max only as a Python scalar: clip(x, max=tensor) raises TypeError (\"argument 'max' must be scalar, not <class 'oneflow.Tensor'>\"), where the standard's clip takes an array for it"),
        ("fn.searchsorted.*.opt-sorter*", "invalid combination of arguments", "oneflow.searchsorted has no sorter keyword (TypeError: its signatures are (sorted_sequence, values, out_int32=False, right=False) with values a tensor or a scalar), where the standard's searchsorted takes sorter= from 2023.12"),
        ("fn.equal.*", "not of the [$]type", "oneflow.equal is whole-tensor equality returning a Python bool (True for a tensor and itself, as torch.equal), where the standard's equal is elementwise (oneflow.eq)"),
        ("fn.linalg.diagonal.*", "missing 1 required positional argument: 'input'", "oneflow.linalg.diagonal is written def diagonal(self, input, offset=0, dim1=-2, dim2=-1), a method's signature at module level: called with one tensor it raises TypeError (missing 'input'), so it cannot be called as documented"),
        ("fn.flip.*", "missing required argument dims", "oneflow.flip requires dims (TypeError 'flip(): missing required argument dims'), where the standard's flip flips every axis when axis is None"),
        ("fn.repeat.*", "argument 'repeat_shape' must be shape", "oneflow.repeat(x, sizes) is torch's Tensor.repeat, a tiling by a shape (TypeError \"argument 'repeat_shape' must be shape\" for an int or a tensor of repeats), not the standard's repeat(x, repeats, axis=None), which repeats each element"),
        ("fn.nonzero.*", "the result of nonzero is not a tuple", "oneflow.nonzero returns one 2-d int64 tensor of indices (shape (n, ndim)), not a tuple of arrays (nonzero(x, as_tuple=True) is the standard's form)"),
        ("fn.sort.*", "not of the [$]type", "oneflow.sort returns a named tuple (values, indices), where the standard's sort returns the sorted array"),
        ("copy.asarray.*", "as_tensor takes no copy", "OneFlow has no asarray; its conversion oneflow.as_tensor takes no copy= (lacks asarray(copy=))"),
        ("asarray.array.inherits-copy", "as_tensor takes no copy", "OneFlow has no asarray; its conversion oneflow.as_tensor takes no copy= (lacks asarray(copy=))"),
        ("mixed.binary.zero-d", "returned a value", "OneFlow moves a 0-d tensor on cpu:1 to the other operand's device (cpu:0 [1,2,3] * 0-d cpu:1 gives a tensor on cpu:0) instead of raising, as torch does for CPU scalars; OneFlow's documentation says nothing of devices in arithmetic"),
        ("oneflow.device.get-device-gpu", "died during array.create", _OF_GPU),
        ("oneflow.device.negative-index-refused", "returned a value", "OneFlow 0.9.0 takes device('cuda:-1') for cuda:0 without a word, while its device('cuda', -1) raises 'Device ID should be non-negative': the string form never checks the ordinal's sign"),
        ("oneflow.device.legacy-ordinal", "incompatible constructor arguments", "OneFlow 0.9.0 contradicts its documentation (OF-DEV-5): device(1) raises TypeError ('incompatible constructor arguments'; only device(str) and device(str, int) exist)"),
        ("oneflow.device.forms-agree", "incompatible constructor arguments", "OneFlow 0.9.0 contradicts its documentation (OF-DEV-5, OF-DEV-6): device(0) raises TypeError, and zeros(device=0) raises TypeError too ('argument device must be device, not int')"),
        ("oneflow.promotion.*complex*", "no dtype (?P<dt>complex\\d+)", _OF_NO_DTYPE),
    ]
    dtypes = list(_OF_CATEGORY)
    for a in dtypes:
        for b in dtypes:
            if _OF_CATEGORY[b] > _OF_CATEGORY[a]:
                rules.append(("out.inplace.add.%s.%s*" % (a, b), "returned a value where RuntimeError was expected", "OneFlow 0.9.0 contradicts its documentation (OF-OUT-1, OF-OUT-2): x1 += x2 with x1 %s and x2 %s writes the %s result into x1 as %s without a word, where -=, *= and /= refuse it (RuntimeError 'result type ... can't be cast to the desired output type')" % (a, b, b, a)))
    rules += [
        ("promotion.category.divide.bool.bool.*", "expected \"float32\", observed \"bool\"", "OneFlow 0.9.0 divides two bool tensors into a bool tensor ([True, False] / [True, True] gives bool [True, False]; a 0-d bool divisor likewise), where int / int gives float32; the case takes OneFlow's result to be float32, which it is not (OF-PROM-1's category rules give bool)"),
        ("out.*", "lacks multiply[(]out=[)]", "oneflow.mul takes no out= (TypeError 'received an invalid combination of arguments'; nor do add, sub and div), so multiply(x1, x2, out=out) with out another tensor cannot be written; only the in-place operators write into an existing tensor, and the out.inplace.* cases use those"),
        ("mixed.out.*", "lacks multiply[(]out=[)]", "oneflow.mul takes no out= (TypeError 'received an invalid combination of arguments'; nor do add, sub and div), so multiply(x1, x2, out=out) with out another tensor cannot be written; only the in-place operators write into an existing tensor, and the mixed.out.inplace-* cases use those"),
    ]
    for op, sign in _OF_SIGN.items():
        for a in dtypes:
            for b in dtypes:
                if _OF_CATEGORY[b] <= _OF_CATEGORY[a]:
                    continue
                got = "float32" if op == "divide" and _OF_CATEGORY[a] == 1 else a
                rules.append(("promotion.category.%s.%s.%s.0d*" % (op, a, b), "at .dtype: expected \"%s\", observed \"%s\"" % (b, got), "OneFlow 0.9.0 contradicts its documentation (OF-PROM-4): %s %s tensor %s a 0-d %s tensor gives %s, where the 0-d operand's higher category gives %s%s" % ("an" if a.startswith("int") else "a", a, sign, b, got, b, "; int / int and int / 0-d float both give float32, the default dtype" if got != a else ": the dimensioned operand's dtype is kept")))
    for a, b in (("int8", "uint8"), ("uint8", "int8")):
        rules.append(("promotion.category.*.%s.%s.array" % (a, b), "Cannot find the kernel", "%s with %s promotes to int16 (OF-PROM-5), a dtype OneFlow 0.9.0 does not have: the %s -> int16 cast has no kernel, and add, sub and mul raise RuntimeError ('Cannot find the kernel matching Current OperatorConf ... cast'), where div gives float32" % (a, b, a)))
    for op, kernel in (("multiply", "scalar_mul"), ("divide", "scalar_div")):
        rules.append(("promotion.category.%s.*.scalar-bool*" % op, "The scalar in %s should be float or int" % kernel, "OneFlow 0.9.0 contradicts its documentation (OF-PROM-2, OF-PROM-3: bool is a category of scalars too): %s of a tensor and a Python bool raises NotImplementedError ('The scalar in %s should be float or int'), while add and subtract take a bool scalar" % ("oneflow.mul" if op == "multiply" else "oneflow.div", kernel)))
    return rules


R["oneflow"] = _oneflow_rules()
R["oneflow-4"] = [
 ("oneflow.placement.bad-duplicate", "died", "placement('cpu', [0, 1, 1, 2]), a placement with a duplicate rank, aborts OneFlow 0.9.0 on every rank (SIGABRT from a failed check) instead of raising"),
 ("oneflow.sbp.dtype.float16.p-to-b", "died", "converting a float16 global tensor from partial_sum to broadcast on CPU aborts OneFlow 0.9.0 on every rank (std::out_of_range 'map::at' thrown by the all-reduce, then terminate), where split(0) to broadcast of the same float16 tensor works"),
 ("oneflow.sbp.dtype.*", "has no dtype (?P<dt>\\w+)", _OF_NO_DTYPE),
 ("oneflow.sbp.fewer-rows.*", "died", "a global tensor of 3 elements split(0) over 4 ranks, fewer rows than ranks, aborts OneFlow 0.9.0 (whether made so from the whole value or converted from broadcast): the ranks that would hold an element raise RuntimeError '(3 vs 4)' and the rank that would hold none aborts (SIGABRT, 'Check failed: bs.At(id).size() > 0' in nd_sbp_util.cpp), taking the job down; 5 rows over 4 ranks (2, 1, 1, 1) work"),
]

# Per library, the crashes that strike at random, written as intermittent-crash entries
# whatever the run (one run cannot tell where they will strike; the runner runs such a crash
# once more, spec/decisions.md, Runner and reports 46), in this order after the others: a
# crash that no rule explains is explained by the first of them that names its case, and gets
# no entry of its own. None at present: OneFlow 0.9.0's sort of an empty tensor struck at
# random only while the oneflow adapter did not wait for OneFlow's eager work; it now waits,
# and the crash is its own case's (spec/decisions.md, OneFlow itself 13).
INTERMITTENT: dict[str, list[tuple[str, str]]] = {}

# An adapter's expectations file is made with the rules of its own name for a report of the
# library named here (where its name is not the library's), and written where its entry says
# (conformance/expectations/NAME.txt for a run whose entry names none yet).
# BEGIN generated by libraries/tools/gen_libraries.py from libraries/*.json; edit those
ADAPTER_LIBRARY = {
    "refarray-legacy": "refarray",
    "refarray-oneflow": "refarray",
    "refarray-oneflow-examples": "refarray",
    "refarray-no-float64": "refarray",
    "jax-mesh4": "jax",
    "refarray-mpi4": "refarray",
    "oneflow-4": "oneflow",
}
EXPECTATIONS = {
    "refarray": "conformance/expectations/refarray.txt",
    "refarray-legacy": "conformance/expectations/refarray.txt",
    "refarray-oneflow": "conformance/expectations/refarray-oneflow.txt",
    "refarray-oneflow-examples": "conformance/expectations/refarray-oneflow.txt",
    "refarray-no-float64": "conformance/expectations/refarray.txt",
    "clblast": "conformance/expectations/clblast.txt",
    "numpy": "conformance/expectations/numpy.txt",
    "array-api-strict": "conformance/expectations/array-api-strict.txt",
    "jax": "conformance/expectations/jax.txt",
    "jax-mesh4": "conformance/expectations/jax-mesh4.txt",
    "torch": "conformance/expectations/torch.txt",
    "tinygrad": "conformance/expectations/tinygrad.txt",
    "ivy": "conformance/expectations/ivy.txt",
    "refarray-mpi4": "conformance/expectations/refarray.txt",
    "oneflow": "conformance/expectations/oneflow.txt",
    "oneflow-4": "conformance/expectations/oneflow-4.txt",
}
# END generated


Entry = tuple[str, str, str]


def entries(library: str, report: dict[str, Any]) -> tuple[list[Entry], list[Entry]]:
    """(id, status, reason) of each failure a rule explains, and of each that none does (a
    crash that an intermittent-crash entry of INTERMITTENT names is neither)."""
    rules = R.get(library, [])
    found: list[Entry] = []
    unexplained: list[Entry] = []
    for case in report["cases"]:
        status = case.get("observed_status", case["status"])
        if status in ("pass", "skip"):
            continue
        text = case.get("reason", "")
        for glob, rx, why in rules:
            m = re.search(rx, text) if fnmatch.fnmatchcase(case["id"], glob) else None
            if m:
                # A reason may name what the failure's text says: \g<name> stands for the
                # rule's group of that name (the dtype a library lacks, say).
                found.append((case["id"], status, m.expand(why) if "\\g<" in why else why))
                break
        else:
            if not (status == "crash" and any(fnmatch.fnmatchcase(case["id"], glob)
                                              for glob, _ in INTERMITTENT.get(library, []))):
                unexplained.append((case["id"], status, text))
    return found, unexplained


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    library, path = argv
    if library not in EXPECTATIONS:
        sys.stderr.write("update.py: %s: no run of that name in libraries/*.json (runs: %s)\n"
                         % (library, ", ".join(EXPECTATIONS)))
        return 2
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    if report["header"]["library"]["name"] != ADAPTER_LIBRARY.get(library, library):
        sys.stderr.write("update.py: %s is a report of %s, not %s\n" %
                         (path, report["header"]["library"]["name"], library))
        return 2
    found, unexplained = entries(library, report)
    for case_id, status, text in unexplained:
        sys.stderr.write("update.py: no rule explains %s (%s): %s\n" % (case_id, status, text))
    if unexplained:
        return 1
    lines = ["# Known results of the conformance suite against %s %s (adapters/python)." %
             (report["header"]["library"]["name"], report["header"]["library"]["version"] +
              (" as adapter %s" % library if library in ADAPTER_LIBRARY else "")),
             "# One entry per line: <case id> <status> # reason, written from what the library "
             "does.",
             "# Generated by update.py from a run without expectations; edit the rules there."]
    lines += ["%s %s # %s" % entry for entry in found]
    lines += ["%s intermittent-crash # %s" % entry for entry in INTERMITTENT.get(library, [])]
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = os.path.join(top, EXPECTATIONS[library])
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(out + ".tmp", out)
    print("update.py: %s: %d entries" % (out, len(found)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
