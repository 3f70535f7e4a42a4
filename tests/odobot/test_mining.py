"""Container mining (OdoBot III-C1): a card grid's container is found, a one-off is not."""

from __future__ import annotations

from odobot.mining import dom_tree, dynamic_xpath, mine_containers

CARD = (
    '<div class="card"><h3><a href="/c/{i}">Course {i}</a></h3><p>Term {i}</p>'
    "<span>{i}</span></div>"
)
PAGE = (
    "<html><head><title>x</title></head><body>"
    '<header><a href="/">Home</a><form><input name="q"><button>Go</button></form></header>'
    '<main><h1>Dashboard</h1><div class="toolbar"><a class="btn" href="/new">New course</a></div>'
    '<section><div class="grid">' + "".join(CARD.format(i=i) for i in range(4)) + "</div>"
    "<aside><table><tr><td>Help</td></tr></table></aside></section></main></body></html>"
)
GRID = "/html[1]/body[1]/main[1]/section[1]/div[1]"


def test_tree_xpaths_match_the_executor_style() -> None:
    g = dom_tree(PAGE)
    xps = {d["xpath"] for _, d in g.nodes(data=True)}
    assert f"{GRID}/div[3]/h3[1]/a[1]" in xps
    assert "/html[1]/body[1]/header[1]/form[1]/input[1]" in xps


def test_card_grid_is_a_container_and_a_one_off_is_not() -> None:
    containers = mine_containers(PAGE)
    grid = [c for c in containers if c.prefix == GRID]
    assert len(grid) == 1 and grid[0].tag == "div" and len(grid[0].children) == 4
    # A click on any card's link resolves to (container, child tag, suffix) - Fig. 2.
    link = f"{GRID}/div[3]/h3[1]/a[1]"
    assert dynamic_xpath(link, containers) == (GRID, "div", "/h3[1]/a[1]")
    # The single "New course" button and the header's search button repeat nothing.
    assert dynamic_xpath("/html[1]/body[1]/main[1]/div[1]/a[1]", containers) is None
    assert dynamic_xpath("/html[1]/body[1]/header[1]/form[1]/button[1]", containers) is None


def test_different_structures_are_not_clustered_together() -> None:
    odd = PAGE.replace("<p>Term 2</p><span>2</span>", "<ul><li>x</li><li>y</li></ul>")
    grid = next(c for c in mine_containers(odd) if c.prefix == GRID)
    assert f"{GRID}/div[3]" not in grid.children and len(grid.children) == 3
