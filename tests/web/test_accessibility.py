"""Accessibility checks of the web client (docs/web-client.md) that a browser can measure: every
control has a name, and text keeps WCAG AA contrast (4.5:1) against its background."""

from __future__ import annotations

from tests.web.conftest import add_bots_and_start, create_table, register, unique_name, wait_for_decision

# For every element that shows text of its own: its colour, and the first opaque background
# colour among it and its ancestors. Elements under a patterned background (the back of a
# card, which shows no text but "?") are reported apart.
CONTRASTS = """() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (let n = el; n; n = n.parentElement) {
      const s = getComputedStyle(n);
      if (s.backgroundImage !== "none") return null;
      const c = rgb(s.backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] === 1)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.offsetParent) continue;
    const bg = background(el);
    if (!bg) continue;
    const [a, b] = [lum(rgb(getComputedStyle(el).color).slice(0, 3)), lum(bg)];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    out.push([el.tagName + (el.id ? "#" + el.id : "") + "." + el.className, el.textContent.trim().slice(0, 30), ratio]);
  }
  return out;
}"""

UNNAMED = """() => [...document.querySelectorAll("button, input, select, textarea, a[href]")]
  .filter((el) => el.offsetParent)
  .filter((el) => {
    if (el.getAttribute("aria-label") || el.textContent.trim()) return false;
    if (el.id && document.querySelector(`label[for="${el.id}"]`)) return false;
    return !el.closest("label");
  })
  .map((el) => el.outerHTML.slice(0, 80))"""


def assert_accessible(page):
    low = [entry for entry in page.evaluate(CONTRASTS) if entry[2] < 4.5]
    assert low == [], low
    assert page.evaluate(UNNAMED) == []


def test_lobby_and_table_keep_contrast_and_name_every_control(new_page):
    page = new_page(phone=True)
    page.goto("/play/")
    page.get_by_label("Username").wait_for()
    assert_accessible(page)  # the log-in form
    register(page, unique_name())
    page.get_by_label("Game", exact=True).select_option("lopti")
    assert_accessible(page)  # the lobby with the Lopti options
    create_table(page, "lopti", 2, {"bot_delay": 0})
    add_bots_and_start(page, 1)
    wait_for_decision(page)
    page.locator("#hand button.card").first.click()  # a selected card too
    assert_accessible(page)
