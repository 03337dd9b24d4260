// Handoff's one script, served by the store. The pages work without it; it only adds what a
// browser can do that a form cannot: copy an invite link, offer the browser's time zone, save a
// card as PNG, follow a group as it happens, and keep a live run's card fresh.
"use strict";
document.querySelectorAll("button[data-copy]").forEach(function (button) {
  var field = document.getElementById(button.getAttribute("data-copy"));
  if (!field || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(field.value).then(function () {
      button.textContent = "Copied";
    });
  });
});
document.querySelectorAll("select[data-browser-zone]").forEach(function (select) {
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (select.value !== "UTC" || !zone) return;
  for (var i = 0; i < select.options.length; i++) {
    if (select.options[i].value === zone || select.options[i].text === zone) {
      select.selectedIndex = i;
      return;
    }
  }
});
// A card as PNG, made here from the store's SVG (the store has no rasteriser): the SVG is drawn
// on a canvas of its own size and the canvas saved. Same origin, so the canvas may be read.
function handoffCardPNG(url) {
  return new Promise(function (resolve, reject) {
    var image = new Image();
    image.onload = function () {
      var canvas = document.createElement("canvas");
      canvas.width = image.naturalWidth || 1200;
      canvas.height = image.naturalHeight || 630;
      canvas.getContext("2d").drawImage(image, 0, 0, canvas.width, canvas.height);
      canvas.toBlob(function (blob) { blob ? resolve(blob) : reject(new Error("no PNG")); }, "image/png");
    };
    image.onerror = function () { reject(new Error("the card did not load")); };
    image.src = url;
  });
}
document.querySelectorAll("button[data-png-from]").forEach(function (button) {
  var url = button.getAttribute("data-png-from");
  button.hidden = false;
  button.addEventListener("click", function () {
    handoffCardPNG(url).then(function (blob) {
      var link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = url.split("/").slice(-3).join("-").replace(/\.svg$/, "") + ".png";
      document.body.appendChild(link);
      link.click();
      link.remove();
    });
  });
});
// Pages follow their groups' events (GET /v1/groups/{id}/events, with the page's cookie; the
// browser reconnects by itself, after the last event it saw). An element with data-events
// listens to one group: its baton line (the element itself, or its [data-baton] child; "short"
// on the home page) changes in place. A counted run or the goal reached reloads the page, which
// then shows the new totals; with data-news (the feed) it says what happened instead, beside a
// link that shows it, so a page being read does not move under its reader.
function handoffBaton(line, event) {
  var short = line.getAttribute("data-baton") === "short";
  line.textContent = "";
  if (event.holder) {
    var name = document.createElement("strong");
    name.textContent = event.holder;
    line.appendChild(name);
    line.appendChild(document.createTextNode(short ? " holds the baton" : " holds the baton since just now."));
  } else {
    line.textContent = short ? "the baton is free" : "The baton is free: the next runner takes it.";
  }
}
function handoffNews(box, event) {
  var group = box.getAttribute("data-group") || "Your group";
  var units = box.getAttribute("data-units") === "mi" ? "mi" : "km";
  var said = {
    baton_taken: event.holder + " took the baton in " + group + ".",
    baton_passed: (event.from || "The baton") + " passed the baton to " + event.holder + " in " + group + ".",
    baton_released: (event.from || "Its holder") + " set the baton down in " + group + ": it is free.",
    baton_expired: "The baton's time ran out in " + group + ": it is free.",
    run_counted: event.runner + " ran " + (event.distance_m / (units === "mi" ? 1609.344 : 1000)).toFixed(1) + " " +
      units + " for " + group + ".",
    goal_reached: group + " reached its goal!"
  }[event.kind];
  if (!said) return;
  box.querySelector("[data-said]").textContent = said;
  box.hidden = false;
}
document.querySelectorAll("[data-events]").forEach(function (box) {
  if (!window.EventSource) return;
  var source = new EventSource(box.getAttribute("data-events"));
  var line = box.hasAttribute("data-baton") ? box : box.querySelector("[data-baton]");
  var news = box.hasAttribute("data-news");
  ["baton_taken", "baton_passed", "baton_released", "baton_expired"].forEach(function (kind) {
    source.addEventListener(kind, function (message) {
      var event = JSON.parse(message.data);
      if (news) handoffNews(box, event);
      else if (line) handoffBaton(line, event);
    });
  });
  ["run_counted", "goal_reached"].forEach(function (kind) {
    source.addEventListener(kind, function (message) {
      if (news) handoffNews(box, JSON.parse(message.data));
      else window.location.reload();
    });
  });
});
// A live run's card (data-refresh: seconds) is fetched again from the page's own address and
// swapped in place, so the track grows without the page moving; without the script the card's
// link reloads the page. A card that is gone (the run ended, the link revoked) stays as it was.
document.querySelectorAll("[data-refresh][id]").forEach(function (card) {
  if (!window.fetch || !window.DOMParser) return;
  var seconds = Math.max(5, parseInt(card.getAttribute("data-refresh"), 10) || 15);
  setInterval(function () {
    fetch(window.location.pathname, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (!html) return;
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById(card.id);
        if (fresh) card.innerHTML = fresh.innerHTML;
      })
      .catch(function () {});
  }, seconds * 1000);
});
