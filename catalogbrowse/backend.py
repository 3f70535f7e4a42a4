"""Where the clause model runs: a served endpoint (vLLM or `pathwise serve --embedded`) through
serving.client, or the embedded backend in this process. torch is imported only for the latter.
Without either, the trained model at the default location (catalogbrowse/clause_card.py)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from catalogbrowse.clause_card import CARD_FILE, read_card
from catalogbrowse.fallback import ClauseModel
from planner.clause_layout import DEFAULT_LAYOUT


def clause_model(
    endpoint: str | None = None,
    served_name: str | None = None,
    model_dir: str | Path | None = None,
    adapter: str | Path | None = None,
    api_key: str | None = None,
    layout: str | None = None,
    subjects: Mapping[str, str] | None = None,
    default_dir: str | Path | None = None,
) -> ClauseModel:
    """The fallback over an endpoint, a checkpoint run in-process, or (neither given) the model
    at `default_dir`. The layout comes from the model's card when there is one, else `layout`.
    A served one is checked first (reachable, key accepted, name served). Raises ValueError
    (CardError, EndpointError), EndpointAuthError or OSError with a one-line reason."""
    if not endpoint and not model_dir and default_dir:
        read_card(default_dir)  # the default location must hold a trained model
        model_dir = default_dir
    card_dir = model_dir or default_dir
    if layout is None:
        has_card = card_dir is not None and (Path(card_dir) / CARD_FILE).is_file()
        layout = read_card(card_dir).layout if has_card else DEFAULT_LAYOUT
    if endpoint:
        from serving.endpoint import EndpointSpec

        if not served_name:
            # Any name will do to list what the server serves; the one it serves is the default.
            cards = EndpointSpec(url=endpoint, model="?", api_key=api_key).model_cards()
            served = [str(c.get("id")) for c in cards]
            if len(served) != 1:
                raise ValueError(
                    f"{endpoint} serves {served or 'no model'}; name one with --served-name"
                )
            served_name = served[0]
        spec = EndpointSpec(url=endpoint, model=served_name, api_key=api_key)
        spec.check()
        client = spec.client(vision=False, schema_name="clause")
        return ClauseModel(client, layout=layout, subjects=subjects)
    if model_dir:
        from serving.embedded import EmbeddedBackend, placement

        device, dtype, _why = placement()
        backend = EmbeddedBackend(model_dir, adapter_dir=adapter, dtype=dtype, device=device)
        return ClauseModel(backend, layout=layout, subjects=subjects)
    raise ValueError("the model fallback needs --endpoint URL or --model-dir DIR")
