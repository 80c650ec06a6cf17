// Mounts the recording player (asciinema-player, served from /static/player) in every
// element that names a served recording; the page works without it (a link to the file).
// The recording plays with its own timing unless "skip idle time" is ticked: then the player's
// idle-time limit shortens long pauses as it plays (the recording itself is not changed).
// Chapters are the run's timeline marks (times of the recording, mapped to the player's time
// when pauses are shortened); a search of the log seeks the player to the first match after
// the one found before.
(function () {
  "use strict";
  window.argusicPlayers = [];
  var CONTROL = /\x1b\[[0-?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[@-Z\\^_=>]|[\x00-\x08\x0b-\x1f\x7f]/g;

  // The recording's output events: their times (seconds of the recording) and plain text.
  function parse(text) {
    var lines = text.split("\n"), header = JSON.parse(lines[0]);
    var relative = header.version === 3, elapsed = 0, times = [], texts = [];
    lines.slice(1).forEach(function (line) {
      if (!line.trim() || line[0] === "#") return;
      var event = JSON.parse(line);
      elapsed = relative ? elapsed + event[0] : event[0];
      if (event[1] === "o") {
        times.push(elapsed);
        texts.push(event[2].replace(CONTROL, ""));
      }
    });
    return { times: times, texts: texts, all: texts.join("").toLowerCase() };
  }

  // A time of the recording as the player counts it with pauses capped at `limit` seconds
  // (as asciinema-player's own time limiter does).
  function playerTime(recording, limit, time) {
    if (!limit) return time;
    var shift = 0, before = 0;
    for (var i = 0; i < recording.times.length && recording.times[i] <= time; i++) {
      shift += Math.max(0, recording.times[i] - before - limit);
      before = recording.times[i];
    }
    return time - shift - Math.max(0, time - before - limit);
  }

  // The inverse: the time of the recording a player with pauses capped at `limit` is at.
  function recordingTime(recording, limit, time) {
    if (!limit) return time;
    var at = 0, before = 0;
    for (var i = 0; i < recording.times.length; i++) {
      var step = Math.min(recording.times[i] - before, limit);
      if (at + step > time) break;
      at += step;
      before = recording.times[i];
    }
    return before + (time - at);
  }

  function mount(element, index) {
    var marks = JSON.parse(element.dataset.markers || "[]");
    var limit = 0, player = null, recording = null, searchedTo = 0;
    var loaded = fetch(element.dataset.cast)
      .then(function (answer) { return answer.text(); })
      .then(function (text) { recording = parse(text); return recording; });

    function create(startAt) {
      if (player) player.dispose();
      element.textContent = "";
      var options = {
        fit: "both",
        preload: true,
        poster: "npt:0:0.1",
        theme: "asciinema",
        markers: marks.map(function (m) { return [playerTime(recording, limit, m[0]), m[1]]; })
      };
      if (limit) options.idleTimeLimit = limit;
      if (startAt) options.startAt = startAt;
      player = AsciinemaPlayer.create(element.dataset.cast, element, options);
      window.argusicPlayers[index] = player;
    }

    function seek(time) {
      return loaded.then(function () { return player.seek(playerTime(recording, limit, time)); });
    }

    create(0);
    var skip = document.getElementById("skip-idle");
    if (skip) {
      skip.addEventListener("change", function () {
        loaded.then(function () {
          return Promise.resolve(player.getCurrentTime()).then(function (now) {
            var at = recordingTime(recording, limit, now || 0);
            limit = skip.checked ? Number(skip.dataset.limit) : 0;
            create(at);
          });
        });
      });
    }
    document.querySelectorAll("[data-seek]").forEach(function (button) {
      button.addEventListener("click", function () { seek(Number(button.dataset.seek)); });
    });
    var form = document.getElementById("log-search");
    if (form) {
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var wanted = document.getElementById("log-search-text").value.toLowerCase();
        var result = document.getElementById("log-search-result");
        loaded.then(function (found) {
          var at = wanted ? found.all.indexOf(wanted, searchedTo) : -1;
          if (at === -1 && searchedTo) at = found.all.indexOf(wanted);
          if (at === -1) {
            result.textContent = "Not found.";
            result.dataset.time = "";
            return null;
          }
          searchedTo = at + 1;
          var offset = 0, i = 0;
          while (offset + found.texts[i].length <= at) offset += found.texts[i++].length;
          result.textContent = "Found at " + found.times[i].toFixed(1) + " s of the recording.";
          result.dataset.time = String(found.times[i]);
          return seek(found.times[i]);
        });
      });
    }
  }

  document.querySelectorAll("[data-cast]").forEach(mount);
})();
