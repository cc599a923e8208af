"""The generated view on disk: ``domains/<d>/``, its load cache and the manifest.

The view is what the compile pipelines write and what everything else reads.
It uses the dialect (:mod:`uac.dialect`) to validate and load the code and
never imports the pipelines (:mod:`uac.compile`).

* :mod:`.store` -- read ``domains/<d>/`` and replace a domain atomically;
* :mod:`.cache` -- the JSON load cache under ``.uac/structure/``;
* :mod:`.manifest` -- ``MANIFEST.md``, rendered from the loaded view;
* :mod:`.state` -- :class:`~.state.StateView`, the read-only ``UserMemory.state``;
* :mod:`.health` -- the ``view`` check of ``uac doctor``.
"""
