"""`python -m tests.serving.conformance` prints the support table for docs/serving.md."""

from tests.serving.conformance.support import render_table

print(render_table())
