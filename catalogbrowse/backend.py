"""Where the clause model runs: a served endpoint (vLLM or `pathwise serve --embedded`) through
serving.client, or the embedded backend in this process. torch is imported only for the latter."""

from __future__ import annotations

from pathlib import Path

from catalogbrowse.fallback import ClauseModel


def clause_model(
    endpoint: str | None = None,
    served_name: str | None = None,
    model_dir: str | Path | None = None,
    adapter: str | Path | None = None,
    api_key: str | None = None,
) -> ClauseModel:
    """The clause model; a served one is checked first (reachable, key accepted, name served)."""
    if endpoint:
        from serving.endpoint import EndpointSpec

        if not served_name:
            raise ValueError("--served-name is required with --endpoint (the model id to call)")
        spec = EndpointSpec(url=endpoint, model=served_name, api_key=api_key)
        spec.check()
        return ClauseModel(spec.client(vision=False, schema_name="clause"))
    if model_dir:
        from serving.embedded import EmbeddedBackend

        return ClauseModel(EmbeddedBackend(model_dir, adapter_dir=adapter))
    raise ValueError("the model fallback needs --endpoint URL or --model-dir DIR")
