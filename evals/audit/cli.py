"""`pathwise audit create | serve | report`."""

from __future__ import annotations

import typer

audit_app = typer.Typer(
    help="Blinded paired human audit (WebRider Appendix G): create a study, serve it to "
    "raters on 127.0.0.1, report PCS, HCP, kappa and CGS agreement.",
    no_args_is_help=True,
)
