// The projector's pages. The server sends every row in one list; here the rows are
// measured against this screen and dealt into columns and pages, so any screen shows
// every row with none cut, and the pages turn by themselves. Without JavaScript the
// list stays one scrolling set of columns (projector.css).
// The round clock is live.js's; this file only pages. ?interval=ms turns pages faster
// (tests, or an organizer who wants it); arrow keys turn them by hand; + and - make the
// text larger or smaller on this screen (remembered by its browser).
(function () {
  "use strict";
  // Before the first paint (this script is not deferred): the unpaged list never flashes.
  document.documentElement.classList.add("proj-js");

  var MAX_COLUMNS = 12;
  // A short list is made up to this much larger to fill the screen (16 players' pairings).
  var MAX_SCALE = 3;
  var DEFAULT_TURN_MS = 12000;
  // The text size of this one screen (+ and - keys), kept by the browser that shows it:
  // a screen read from further away than the default assumes (projector.css) needs more.
  var TEXT_KEY = "projector-text-scale";
  var TEXT_STEP = 0.1, TEXT_MIN = 0.6, TEXT_MAX = 2;
  // Layouts are cached by the rows' text and the board's size: the fragment is swapped in
  // on every poll, and a result changes no pairing, so a round is measured once (2,048
  // rows take a few hundred ms on a slow laptop).
  var state = { page: 0, pages: [[[]]], key: "", cols: 1, scale: 1, spread: 0, nameShare: "", screen: "" };
  var timer = null;

  function turnMs(section) {
    var asked = parseInt(new URLSearchParams(window.location.search).get("interval") || "", 10);
    // Browsers run a delay beyond 2^31 ms at once: an hour is the most asked for.
    if (asked >= 100) return Math.min(asked, 3600000);
    var given = parseInt(section.dataset.turnMs || "", 10);
    return given > 0 ? given : DEFAULT_TURN_MS;
  }

  function percentile(values, p) {
    if (!values.length) return 0;
    var sorted = values.slice().sort(function (a, b) { return a - b; });
    return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  }

  function px(value) {
    var n = parseFloat(value);
    return isNaN(n) ? 0 : n;
  }

  function makeColumn(section) {
    var col = document.createElement("div");
    col.className = "proj-col";
    if (section.projHead) col.appendChild(section.projHead.cloneNode(true));
    var list = document.createElement("ol");
    list.className = "proj-list";
    col.appendChild(list);
    return col;
  }

  // Take the rows out of a freshly swapped fragment (once per fragment).
  function adopt(section) {
    if (section.projRows) return true;
    var board = section.querySelector("[data-proj-board]");
    var source = board && board.querySelector("[data-proj-rows]");
    if (!source) return false;
    section.projText = (section.dataset.screen || "") + "\n" + source.textContent;
    section.projBoard = board;
    section.projHead = board.querySelector("[data-proj-colhead]");
    section.projRows = Array.prototype.slice.call(source.children);
    board.textContent = "";
    return true;
  }

  // The rows' natural widths (one line each): what a column needs, and how to share a
  // row between the name and the opponent.
  function naturalWidths(section) {
    var board = section.projBoard, all = section.projRows;
    // Percentiles need no more than a few hundred rows: an even sample of a big round.
    var step = Math.max(1, Math.floor(all.length / 400));
    var rows = all.filter(function (_row, i) { return i % step === 0; });
    var probe = document.createElement("ol");
    probe.className = "proj-probe";
    rows.forEach(function (row) { probe.appendChild(row.cloneNode(true)); });
    board.appendChild(probe);
    var fixed = [], names = [], others = [];
    Array.prototype.forEach.call(probe.children, function (row) {
      var style = window.getComputedStyle(row);
      var gap = px(style.columnGap);
      var spans = row.children, rest = px(style.paddingLeft) + px(style.paddingRight);
      for (var i = 0; i < spans.length; i++) {
        var w = spans[i].getBoundingClientRect().width;
        if (i) rest += gap;
        if (spans[i].classList.contains("proj-name")) names.push(w);
        else if (spans[i].classList.contains("proj-opp")) others.push(w);
        else rest += w;
      }
      fixed.push(rest);
    });
    board.removeChild(probe);
    // The names' 95th percentile: one very long name wraps (at a space) or ends in an
    // ellipsis rather than take a column from everyone. The opponent, in smaller type
    // on one line, gets its 75th: a long one ends in an ellipsis.
    var name = percentile(names, 0.95), other = percentile(others, 0.75);
    // A short list made larger shows every name and opponent whole: it sizes by the widest.
    var widestName = percentile(names, 1), widestOther = percentile(others, 1);
    return {
      wide: Math.ceil(name + other + percentile(fixed, 1)) + 2,
      nameShare: share(others.length, name, other),
      widest: Math.ceil(widestName + widestOther + percentile(fixed, 1)) + 2,
      widestShare: share(others.length, widestName, widestOther),
    };
  }

  function share(withOthers, name, other) {
    return withOthers ? Math.max(0.5, Math.min(4, name / Math.max(1, other))).toFixed(2) : "";
  }

  // On the board, never on the section: htmx's settling rewrites the section's style.
  function applyColumns(board) {
    board.style.setProperty("--proj-cols", String(state.cols));
    if (state.scale !== 1) board.style.setProperty("--proj-scale", state.scale.toFixed(3));
    else board.style.removeProperty("--proj-scale");
    if (state.spread) board.style.setProperty("--proj-spread", state.spread + "px");
    else board.style.removeProperty("--proj-spread");
    if (state.nameShare) board.style.setProperty("--name-share", state.nameShare);
    else board.style.removeProperty("--name-share");
  }

  // A name with a word wider than its cell takes the opponent's room (the opponent ends
  // in an ellipsis instead): fewer names shortened, and no row taller for it. All reads,
  // then all writes: two layouts for the whole list.
  function borrow(rows) {
    var long = rows.filter(function (row) {
      row.classList.remove("proj-long");
      return row.querySelector(".proj-opp") !== null;
    });
    long = long.filter(function (row) {
      var name = row.querySelector(".proj-name");
      return name.scrollWidth > name.clientWidth + 1;
    });
    long.forEach(function (row) { row.classList.add("proj-long"); });
  }

  // Deal the rows into `cols` columns of this board's height, and columns into pages.
  function deal(section, cols) {
    var board = section.projBoard, rows = section.projRows;
    state.cols = cols;
    applyColumns(board);
    board.textContent = "";
    var col = makeColumn(section);
    var list = col.querySelector("ol");
    rows.forEach(function (row) { list.appendChild(row); });
    board.appendChild(col);
    var head = col.firstElementChild !== list ? col.firstElementChild : null;
    borrow(rows);
    // Half a pixel spare: heights are fractional and rounding must never cut a row.
    var room = col.getBoundingClientRect().height - (head ? head.getBoundingClientRect().height : 0) - 0.5;
    var heights = rows.map(function (row) { return row.getBoundingClientRect().height; });
    board.textContent = "";
    var pages = [], page = [], column = [], used = 0;
    heights.forEach(function (h, i) {
      if (column.length && used + h > room) {
        page.push(column);
        column = [];
        used = 0;
        if (page.length === cols) {
          pages.push(page);
          page = [];
        }
      }
      column.push(i);
      used += h;
    });
    if (column.length) page.push(column);
    if (page.length) pages.push(page);
    if (!pages.length) pages.push([[]]);
    pages.room = room;
    pages.heights = heights;
    pages.rowsHeight = heights.reduce(function (a, b) { return a + b; }, 0);
    return pages;
  }

  // As many columns as the rows allow side by side at the screen's text size (the
  // viewport's, projector.css), so a bigger screen shows more rows a page, not bigger ones.
  function paginate(section) {
    var board = section.projBoard;
    state.scale = 1;
    state.spread = 0;
    applyColumns(board);
    board.textContent = "";
    var natural = naturalWidths(section);
    state.nameShare = natural.nameShare;
    var gap = px(window.getComputedStyle(board).columnGap), width = board.clientWidth;
    var cols = Math.floor((width + gap) / (natural.wide + gap));
    cols = Math.max(1, Math.min(MAX_COLUMNS, cols));
    var pages = deal(section, cols);
    if (pages.length === 1 && section.projRows.length) {
      state.nameShare = natural.widestShare;
      var larger = enlarge(section, natural.widest, gap, width, pages);
      if (larger) return larger;
      state.nameShare = natural.nameShare;
      state.scale = 1;
      return deal(section, cols);
    }
    return pages;
  }

  // A list that fits on one page with room to spare (a club's 16 players) is made larger
  // until it fills the screen: the columns (1 to MAX_COLUMNS) that allow the largest
  // text, estimated from the one-page layout, then checked by dealing the rows again.
  function enlarge(section, wide, gap, width, fitted) {
    var count = section.projRows.length, rowHeight = fitted.rowsHeight / count;
    var best = { cols: 1, scale: 0 };
    for (var cols = 1; cols <= Math.min(MAX_COLUMNS, count); cols++) {
      var byWidth = width / (cols * wide + (cols - 1) * gap);
      var byHeight = fitted.room / (Math.ceil(count / cols) * rowHeight);
      var scale = Math.min(byWidth, byHeight, MAX_SCALE);
      if (scale > best.scale) best = { cols: cols, scale: scale };
    }
    // Borders and wrapped names do not grow in proportion: a little less, then less again.
    for (var scale = best.scale * 0.99; scale > 1.05; scale *= 0.95) {
      state.scale = scale;
      var pages = deal(section, best.cols);
      var even = pages.length === 1 && balance(pages.heights, pages.room, best.cols);
      if (even) {
        // Limited by the width: the rows spread down the screen (a little short of it:
        // heights are fractional).
        var tallest = Math.max.apply(null, even.map(function (c) {
          return c.reduce(function (sum, i) { return sum + pages.heights[i]; }, 0);
        }));
        var most = Math.max.apply(null, even.map(function (c) { return c.length; }));
        state.spread = Math.max(0, Math.floor((pages.room - tallest) / most) - 1);
        return [even];
      }
    }
    return null;
  }

  // The rows in `cols` columns of as even a count as their heights allow (16 rows in two
  // columns: 8 and 8, not 13 and 3), or null when they do not fit.
  function balance(heights, room, cols) {
    var per = Math.ceil(heights.length / cols), columns = [], column = [], used = 0;
    heights.forEach(function (h, i) {
      if (column.length && (column.length === per || used + h > room)) {
        columns.push(column);
        column = [];
        used = 0;
      }
      column.push(i);
      used += h;
    });
    if (column.length) columns.push(column);
    var fits = columns.every(function (c) {
      return c.reduce(function (sum, i) { return sum + heights[i]; }, 0) <= room;
    });
    return fits && columns.length <= cols ? columns : null;
  }

  function render(section) {
    var board = section.projBoard, rows = section.projRows;
    // Fewer pages after a refresh: stay as near as possible to the page being read.
    if (state.page >= state.pages.length) state.page = state.pages.length - 1;
    applyColumns(board);
    board.textContent = "";
    state.pages[state.page].forEach(function (indices) {
      var col = makeColumn(section);
      var list = col.querySelector("ol");
      indices.forEach(function (i) { list.appendChild(rows[i]); });
      board.appendChild(col);
    });
    var pager = section.querySelector("[data-proj-pager]");
    if (pager) {
      pager.hidden = false;
      pager.classList.toggle("proj-single", state.pages.length < 2);
      pager.querySelector("[data-proj-current]").textContent = String(state.page + 1);
      pager.querySelector("[data-proj-total]").textContent = String(state.pages.length);
    }
  }

  // The bracket (during the top cut) is not paged: its text is made smaller until every
  // round's games fit the board's height (long names wrap to more lines).
  function fitBracket(section) {
    var bracket = section.querySelector(".proj-bracket");
    if (!bracket) return;
    var scale = 1;
    bracket.style.removeProperty("--bracket-scale");
    // Each game has an equal share of its round's height (projector.css): none may need more.
    function overflows() {
      return Array.prototype.some.call(bracket.querySelectorAll(".proj-bgames"), function (games) {
        var slot = games.getBoundingClientRect().height / Math.max(1, games.children.length);
        return Array.prototype.some.call(games.children, function (game) {
          return game.getBoundingClientRect().height > slot - 4;
        });
      });
    }
    while (scale > 0.3 && overflows()) {
      scale *= 0.92;
      bracket.style.setProperty("--bracket-scale", scale.toFixed(3));
    }
  }

  function layout(force) {
    var section = document.getElementById("projector");
    if (!section) return;
    if (!adopt(section)) {
      fitBracket(section);
      return;
    }
    // The pager takes its room before the board is measured.
    var pager = section.querySelector("[data-proj-pager]");
    if (pager) pager.hidden = false;
    var board = section.projBoard;
    var key = board.clientWidth + "x" + board.clientHeight + ":" + section.projText;
    // Pairings become standings, or the next round is paired: start from page 1.
    if (state.screen && section.dataset.screen !== state.screen) state.page = 0;
    state.screen = section.dataset.screen || "";
    if (force || key !== state.key) {
      state.pages = paginate(section);
      state.key = key;
    }
    render(section);
  }

  function turn(step) {
    var section = document.getElementById("projector");
    if (!section || !section.projRows || state.pages.length < 2) return;
    state.page = (state.page + step + state.pages.length) % state.pages.length;
    render(section);
  }

  function startTimer() {
    var section = document.getElementById("projector");
    if (timer) window.clearInterval(timer);
    timer = window.setInterval(function () { turn(1); }, section ? turnMs(section) : DEFAULT_TURN_MS);
  }

  document.addEventListener("DOMContentLoaded", function () {
    layout(true);
    startTimer();
  });
  // A new fragment (every poll): same page number, re-measured only if the data changed.
  document.addEventListener("htmx:afterSwap", function () { layout(false); });
  var resizing = null;
  window.addEventListener("resize", function () {
    window.clearTimeout(resizing);
    resizing = window.setTimeout(function () { layout(true); }, 150);
  });
  function textScale() {
    var stored = NaN;
    try { stored = parseFloat(window.localStorage.getItem(TEXT_KEY) || ""); } catch (_e) { /* storage off */ }
    return stored >= TEXT_MIN && stored <= TEXT_MAX ? stored : 1;
  }

  function setTextScale(scale) {
    var root = document.documentElement;
    if (Math.abs(scale - 1) < 0.01) root.style.removeProperty("--text-scale");
    else root.style.setProperty("--text-scale", scale.toFixed(2));
  }

  function changeText(step) {
    var scale = Math.round((textScale() + step) * 10) / 10;
    scale = Math.max(TEXT_MIN, Math.min(TEXT_MAX, scale));
    try { window.localStorage.setItem(TEXT_KEY, String(scale)); } catch (_e) { /* this visit only */ }
    setTextScale(scale);
    layout(true);
  }

  setTextScale(textScale());

  document.addEventListener("keydown", function (e) {
    var text = { "+": TEXT_STEP, "=": TEXT_STEP, "-": -TEXT_STEP }[e.key];
    if (text) {
      e.preventDefault();
      changeText(text);
      return;
    }
    var step = { ArrowRight: 1, PageDown: 1, " ": 1, ArrowLeft: -1, PageUp: -1 }[e.key];
    if (!step) return;
    e.preventDefault();
    turn(step);
    startTimer(); // a page turned by hand stays a full interval
  });
})();
