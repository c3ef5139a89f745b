"""What a backend is, and the one shared by every library with an array API namespace.

A backend maps the protocol's ops onto one library's public API. `Backend` answers every op
with `Unsupported` (kind NotImplementedError, origin "adapter"): a library backend overrides
what its library can express and leaves the rest. `ArrayAPIBackend` implements the ops
through an array API namespace `xp` (the standard's function names and keywords), so each
library's module only states what differs. Nothing here imports a library.
"""

from .protocol import DTYPES, Unsupported, nest


class Backend:
    library_name = "?"
    features = ()

    # -- session --------------------------------------------------------------------------
    def library_version(self):
        raise NotImplementedError

    def devices(self):
        """Every device the library can use now, in its own order."""
        raise NotImplementedError

    def default_device(self):
        return None

    def device_str(self, dev):
        return str(dev)

    def reset(self):
        """Restore the global default, pop every scoped default, unset soft mode."""

    # -- device.* -------------------------------------------------------------------------
    def parse_device(self, text):
        raise Unsupported("%s has no device object built from a string" % self.library_name)

    def describe_device(self, dev):
        return {"str": str(dev)}

    def device_equal(self, a, b):
        return a == b

    def device_from_type_index(self, type_, index):
        raise Unsupported("%s builds no device from (type, index)" % self.library_name)

    def device_from_ordinal(self, ordinal):
        raise Unsupported("%s builds no device from an integer ordinal" % self.library_name)

    # -- info.* ---------------------------------------------------------------------------
    def info_devices(self):
        raise Unsupported("%s has no inspection namespace" % self.library_name)

    def info_default_device(self):
        raise Unsupported("%s has no inspection namespace" % self.library_name)

    def info_default_dtypes(self, **kw):
        raise Unsupported("%s has no inspection namespace" % self.library_name)

    def info_dtypes(self, **kw):
        raise Unsupported("%s has no inspection namespace" % self.library_name)

    # -- array.* --------------------------------------------------------------------------
    def create(self, fn, a, kw):
        raise Unsupported("array.create")

    def asarray_typed(self, typed, kw):
        raise Unsupported("array.asarray")

    def asarray_scalar(self, value, kw):
        raise Unsupported("array.asarray of a scalar")

    def asarray_array(self, x, kw):
        raise Unsupported("array.asarray of an array")

    def astype(self, x, dtype, kw):
        raise Unsupported("array.astype")

    def array_device(self, x):
        return x.device

    def array_dtype(self, x):
        raise NotImplementedError

    def array_shape(self, x):
        return tuple(int(n) for n in x.shape)

    def read(self, x):
        """(dtype name, shape, flat elements as Python scalars), without moving x."""
        raise NotImplementedError

    def to_device(self, x, dev, kw):
        raise Unsupported("%s arrays have no to_device" % self.library_name)

    def binary(self, fn, x1, x2):
        raise Unsupported("array.binary")

    def unary(self, fn, x):
        raise Unsupported("array.unary")

    def reduce(self, fn, x, axis):
        raise Unsupported("array.reduce")

    def matmul(self, x1, x2):
        raise Unsupported("array.matmul")

    def stack(self, arrays, axis):
        raise Unsupported("array.stack")

    def dlpack_device(self, x):
        raise Unsupported("%s arrays have no __dlpack_device__" % self.library_name)

    def from_dlpack(self, x, kw):
        raise Unsupported("%s has no from_dlpack" % self.library_name)

    def tril(self, x, k):
        raise Unsupported("%s has no tril" % self.library_name)

    def triu(self, x, k):
        raise Unsupported("%s has no triu" % self.library_name)

    def dtype(self, name):
        raise Unsupported("%s has no dtype %s" % (self.library_name, name))

    def dtype_name(self, dt):
        return str(dt)

    def can_cast(self, from_, to):
        raise Unsupported("%s has no can_cast" % self.library_name)

    def result_type(self, objs):
        raise Unsupported("%s has no result_type" % self.library_name)

    def default_stream(self, dev):
        raise Unsupported("%s has no stream objects for its devices" % self.library_name)

    # -- default.*, soft.* ----------------------------------------------------------------
    def default_get(self):
        raise Unsupported("default.get")

    def default_set(self, dev):
        raise Unsupported("%s has no settable global default device" % self.library_name)

    def default_unset(self):
        raise Unsupported("%s has no settable global default device" % self.library_name)

    def default_push(self, dev):
        raise Unsupported("%s has no scoped default device" % self.library_name)

    def default_pop(self):
        raise Unsupported("%s has no scoped default device" % self.library_name)

    def soft_get(self):
        raise Unsupported("%s has no soft device mode" % self.library_name)

    def soft_set(self, enabled):
        raise Unsupported("%s has no soft device mode" % self.library_name)

    def soft_unset(self):
        raise Unsupported("%s has no soft device mode" % self.library_name)

    # -- util.* ---------------------------------------------------------------------------
    def num_gpus(self):
        raise Unsupported("%s has no device utilities" % self.library_name)

    def num_cpu_cores(self):
        raise Unsupported("%s has no device utilities" % self.library_name)

    def total_memory(self, dev):
        raise Unsupported("%s has no device utilities" % self.library_name)

    def used_memory(self, dev):
        raise Unsupported("%s has no device utilities" % self.library_name)

    def utilisation(self, dev):
        raise Unsupported("%s has no device utilities" % self.library_name)

    def arrays_on_device(self, dev):
        raise Unsupported("%s cannot list the arrays alive on a device" % self.library_name)


class ArrayAPIBackend(Backend):
    """Ops through an array API namespace `xp`, set by the subclass."""

    xp = None

    # dtype names <-> the namespace's dtype objects
    def dtype(self, name):
        dt = getattr(self.xp, name, None)
        if dt is None:
            raise Unsupported("%s has no dtype %s" % (self.library_name, name))
        return dt

    def array_dtype(self, x):
        for name in DTYPES:
            dt = getattr(self.xp, name, None)
            if dt is not None and x.dtype == dt:
                return name
        return str(x.dtype)

    @staticmethod
    def _kw(kw, dtype_of):
        out = dict(kw)
        if "dtype" in out:
            out["dtype"] = dtype_of(out["dtype"])
        return out

    # -- info ------------------------------------------------------------------------------
    def info(self):
        make = getattr(self.xp, "__array_namespace_info__", None)
        if make is None:
            raise Unsupported("%s has no inspection namespace" % self.library_name)
        return make()

    def info_devices(self):
        return list(self.info().devices())

    def info_default_device(self):
        return self.info().default_device()

    def info_default_dtypes(self, **kw):
        d = self.info().default_dtypes(**kw)
        return {k: self._dtype_name(v) for k, v in d.items()}

    def info_dtypes(self, **kw):
        return list(self.info().dtypes(**kw))

    def dtype_name(self, dt):
        return self._dtype_name(dt)

    def can_cast(self, from_, to):
        return self.xp.can_cast(from_, to)

    def result_type(self, objs):
        return self.xp.result_type(*objs)

    def tril(self, x, k):
        return self.xp.tril(x, k=k)

    def triu(self, x, k):
        return self.xp.triu(x, k=k)

    def _dtype_name(self, dt):
        for name in DTYPES:
            mine = getattr(self.xp, name, None)
            if mine is not None and dt == mine:
                return name
        return str(dt)

    # -- creation -------------------------------------------------------------------------
    def create(self, fn, a, kw):
        xp = self.xp
        kw = self._kw(kw, self.dtype)
        if fn in ("zeros", "ones", "empty"):
            return getattr(xp, fn)(a["shape"], **kw)
        if fn == "full":
            return xp.full(a["shape"], a["fill_value"], **kw)
        if fn == "arange":
            pos = [a["start"]] + [a[k] for k in ("stop",) if k in a]
            if "step" in a:
                if "stop" not in a:
                    pos.append(None)
                kw["step"] = a["step"]
            return xp.arange(*pos, **kw)
        if fn == "linspace":
            return xp.linspace(a["start"], a["stop"], a["num"], endpoint=a["endpoint"], **kw)
        if fn == "eye":
            return xp.eye(a["n_rows"], a.get("n_cols"), k=a["k"], **kw)
        if fn in ("zeros_like", "ones_like", "empty_like"):
            return getattr(xp, fn)(a["x"], **kw)
        if fn == "full_like":
            return xp.full_like(a["x"], a["fill_value"], **kw)
        fft = getattr(xp, "fft", None)
        if fft is None:
            raise Unsupported("%s has no fft namespace" % self.library_name)
        if "d" in a:
            kw["d"] = a["d"]
        return getattr(fft, fn)(a["n"], **kw)

    def asarray_typed(self, typed, kw):
        kw = dict(kw)
        kw["dtype"] = self.dtype(kw.get("dtype") or typed.dtype)
        if 0 in typed.shape:
            return self.xp.reshape(self.xp.asarray(typed.data, **kw), typed.shape)
        return self.xp.asarray(nest(typed.data, typed.shape), **kw)

    def asarray_scalar(self, value, kw):
        return self.xp.asarray(value, **self._kw(kw, self.dtype))

    def asarray_array(self, x, kw):
        return self.xp.asarray(x, **self._kw(kw, self.dtype))

    def astype(self, x, dtype, kw):
        return self.xp.astype(x, self.dtype(dtype), **kw)

    # -- reading ---------------------------------------------------------------------------
    def host(self, x):
        """x as a NumPy array (copied to host where the library needs it)."""
        import numpy
        return numpy.asarray(x)

    def read(self, x):
        dtype = self.array_dtype(x)
        h = self.host(x)
        return dtype, tuple(int(n) for n in h.shape), h.reshape(-1).tolist()

    # -- moving and computing --------------------------------------------------------------
    def to_device(self, x, dev, kw):
        return x.to_device(dev, **kw)

    def binary(self, fn, x1, x2):
        return getattr(self.xp, fn)(x1, x2)

    def unary(self, fn, x):
        return getattr(self.xp, fn)(x)

    def reduce(self, fn, x, axis):
        return getattr(self.xp, fn)(x, axis=axis)

    def matmul(self, x1, x2):
        return self.xp.matmul(x1, x2)

    def stack(self, arrays, axis):
        return self.xp.stack(arrays, axis=axis)

    def dlpack_device(self, x):
        return x.__dlpack_device__()

    def from_dlpack(self, x, kw):
        return self.xp.from_dlpack(x, **kw)

    def default_get(self):
        """The device a creation function uses now with device=None: asked of the library
        by creating an empty 0-d array, which is what the definition says."""
        return self.array_device(self.xp.empty(()))

