// Replay with the arrow keys: Left goes to the previous turn, Right to the next. Progressive
// enhancement only: the page's own "previous" and "next" links do the same without JavaScript.
document.addEventListener("keydown", function (event) {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  var target = event.target;
  if (target && /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(target.tagName)) return;
  var rel = { ArrowLeft: "prev", ArrowRight: "next" }[event.key];
  if (!rel) return;
  var link = document.querySelector('nav.replay a[rel="' + rel + '"]');
  if (link) {
    event.preventDefault();
    window.location.assign(link.href);
  }
});
