// Mounts the recording player (asciinema-player, served from /static/player) in every
// element that names a served recording; the page works without it (a link to the file).
// The recording plays with its own timing: no idle time is cut, nothing is sped up.
(function () {
  "use strict";
  window.argusicPlayers = [];
  document.querySelectorAll("[data-cast]").forEach(function (element) {
    element.textContent = "";
    var player = AsciinemaPlayer.create(element.dataset.cast, element, {
      fit: "both",
      preload: true,
      poster: "npt:0:0.1",
      theme: "asciinema"
    });
    window.argusicPlayers.push(player);
  });
})();
