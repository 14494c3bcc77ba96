// The progress of an archive's jobs (games.views.archives.archive_progress), polled
// while they run; the page reloads when a step ends (the names to review, the report).
(function () {
  "use strict";
  var box = document.querySelector("[data-progress-url]");
  if (!box) return;
  var url = box.getAttribute("data-progress-url");
  var state = box.getAttribute("data-state");
  var bar = box.querySelector("progress");
  function show(data) {
    ["files_scanned", "files_done", "imported", "warnings", "refused", "duplicate"].forEach(function (key) {
      var cell = box.querySelector('[data-count="' + key + '"]');
      if (cell) cell.textContent = data[key];
    });
    var label = box.querySelector("[data-state-label]");
    if (label) label.textContent = data.state_label;
    if (bar) {
      var scanning = data.state === "uploaded";
      bar.max = data.files_total || 1;
      bar.value = scanning ? data.files_scanned : data.files_done;
    }
  }
  function poll() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (!data) return;
        show(data);
        if (data.state !== state) { window.location.reload(); return; }
        if (!data.finished) window.setTimeout(poll, 1500);
      })
      .catch(function () { window.setTimeout(poll, 5000); });
  }
  if (state === "uploaded" || state === "importing") window.setTimeout(poll, 1000);
})();
