// Handoff's one script, served by the store. The pages work without it; it only adds what a
// browser can do that a form cannot: copy an invite link, offer the browser's time zone, save a
// card as PNG, and follow a group as it happens.
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
// A group's page follows the group's events (GET /v1/groups/{id}/events, with the page's
// cookie): the baton's line changes in place, and a counted run reloads the page, which then
// shows the new totals. The browser reconnects by itself, after the last event it saw.
document.querySelectorAll("[data-events]").forEach(function (line) {
  if (!window.EventSource) return;
  var source = new EventSource(line.getAttribute("data-events"));
  function baton(message) {
    var event = JSON.parse(message.data);
    line.textContent = "";
    if (event.holder) {
      var name = document.createElement("strong");
      name.textContent = event.holder;
      line.appendChild(name);
      line.appendChild(document.createTextNode(" holds the baton since just now."));
    } else {
      line.textContent = "The baton is free: the next runner takes it.";
    }
  }
  ["baton_taken", "baton_passed", "baton_released", "baton_expired"].forEach(function (kind) {
    source.addEventListener(kind, baton);
  });
  source.addEventListener("run_counted", function () { window.location.reload(); });
});
