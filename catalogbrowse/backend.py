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
) -> ClauseModel:
    if endpoint:
        from serving.client import ChatClient

        if not served_name:
            raise ValueError("--served-name is required with --endpoint (the model id to call)")
        return ClauseModel(ChatClient(endpoint, served_name, vision=False, schema_name="clause"))
    if model_dir:
        from serving.embedded import EmbeddedBackend

        return ClauseModel(EmbeddedBackend(model_dir, adapter_dir=adapter))
    raise ValueError("the model fallback needs --endpoint URL or --model-dir DIR")
