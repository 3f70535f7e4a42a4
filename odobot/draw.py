"""The graph model as a picture and as text: OdoBot Fig. 1 (vertices coloured by event type).

Colours follow Figure 1: data entry pink, clicks turquoise, API calls orange, locations green,
DOM effects blue. The text listing gives every vertex with its annotation and instances.
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx

COLOURS = {
    "input": "#f4a6c6", "richtext": "#f4a6c6", "select": "#f4a6c6", "checkbox": "#f4a6c6",
    "radio": "#f4a6c6", "click": "#40e0d0", "api": "#f5a142", "location": "#7ccd7c",
    "dom_effect": "#87b5f0",
}  # fmt: skip


def vertex_line(vid: str, data: dict) -> str:
    dyn = " dynamicXpath=" + "|".join(data["dynamic"].values()) if data.get("dynamic") else ""
    fixed = ", ".join(f"{k}={v}" for k, v in data["fixed"].items() if k != "xpaths")
    return (
        f"{vid} [{data['kind']}] {fixed}{dyn}\n    annotation: {data.get('annotation', '')}\n"
        f"    instances: {len(data['instances'])} ({', '.join(data['instances'][:3])}"
        f"{', ...' if len(data['instances']) > 3 else ''})"
    )


def describe_graph(g: nx.DiGraph) -> str:
    order = sorted(g.nodes, key=lambda v: (-len(g.nodes[v]["instances"]), v))
    return "\n".join(vertex_line(v, g.nodes[v]) for v in order)


def draw_graph(g: nx.DiGraph, out: Path, *, title: str = "OdoBot application model") -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = g.number_of_nodes()
    size = min(40.0, 6.0 + n / 8)
    fig, ax = plt.subplots(figsize=(size, size * 0.7))
    pos = nx.spring_layout(g, seed=7, k=1.5 / max(1, n) ** 0.5)
    colours = [COLOURS.get(g.nodes[v]["kind"], "#ccc") for v in g]
    sizes = [80 + 25 * len(g.nodes[v]["instances"]) ** 0.5 for v in g]
    nx.draw_networkx_edges(g, pos, ax=ax, alpha=0.3, arrowsize=6, width=0.6)
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colours, node_size=sizes, linewidths=0.3)
    labels = {
        v: (g.nodes[v]["text"] or g.nodes[v]["fixed"].get("path", ""))[:18]
        for v in g
        if g.nodes[v]["kind"] in ("click", "api", "location")
    }
    nx.draw_networkx_labels(g, pos, labels, ax=ax, font_size=6)
    for kind, colour in COLOURS.items():
        ax.scatter([], [], c=colour, label=kind)
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title(f"{title}: {n} vertices, {g.number_of_edges()} edges")
    ax.axis("off")
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return out
