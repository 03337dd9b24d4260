// Handoff's one script, served by the store. The pages work without it; it only adds what a
// browser can do that a form cannot: copy an invite link, and offer the browser's time zone.
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
