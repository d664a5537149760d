/**
 * Browser script, part 3: the offer of a link's session. A `#token=` arriving in a tab that has a
 * session already is not taken (see `takeFragmentToken`); a notice above the page names the
 * link's account and waits for the user to switch to it or keep the current session.
 */

/** The session offer and the in-page `#token=` links (after `SHELL_JS`). */
export const SESSION_JS = `
function keepSessionButton(label) {
  return h('button', { type: 'button', id: 'session-keep', onclick: dropSessionOffer, text: label });
}

function switchSessionButton(label) {
  return h('button', { type: 'button', id: 'session-switch', class: 'primary', onclick: acceptSessionOffer, text: label });
}

// Shown outside #view, so it stays through refreshes and navigation until answered.
function showSessionOffer() {
  var old = document.getElementById('session-offer');
  if (old) old.parentNode.removeChild(old);
  var token = offeredToken;
  if (!token) return;
  var text = h('p', { text: 'This link carries a sign-in of its own; checking it. Your session is unchanged.' });
  var actions = h('div', { class: 'offer-actions' }, keepSessionButton('Keep my session'));
  var box = h('div', { id: 'session-offer', class: 'alert warn offer', role: 'alert' }, [text, actions]);
  var view = document.getElementById('view');
  view.parentNode.insertBefore(box, view);
  api('GET', '/monitoring/session', undefined, token).then(function (who) {
    if (offeredToken !== token) return;
    var name = who && who.username ? who.username : 'another account';
    var roles = who && Array.isArray(who.roles) && who.roles.length ? ' (' + who.roles.join(', ') + ')' : '';
    fill(text, [
      'This link would sign you in as ', mono(name), roles,
      ' instead of your current session. Nothing changes unless you switch.'
    ]);
    fill(actions, [switchSessionButton('Switch to ' + name), keepSessionButton('Keep my session')]);
  }, function (e) {
    if (offeredToken !== token) return;
    if (e && e.status === 401) {
      fill(text, 'The sign-in in this link is not valid (expired or forged) and was ignored. Your session is unchanged.');
      fill(actions, keepSessionButton('Dismiss'));
      return;
    }
    fill(text, 'The sign-in in this link could not be checked (' + describeError(e) + '). Your session is unchanged.');
    fill(actions, [switchSessionButton('Switch anyway'), keepSessionButton('Keep my session')]);
  });
}

function dropSessionOffer() {
  offeredToken = null;
  showSessionOffer();
}

function acceptSessionOffer() {
  var token = offeredToken;
  dropSessionOffer();
  if (!token) return;
  setToken(token);
  app.session = null;
  render();
}

// A #token= link followed within the page changes only the fragment (no reload): same rules.
window.addEventListener('hashchange', function () {
  var before = offeredToken;
  var changed = takeFragmentToken();
  if (offeredToken !== before) showSessionOffer();
  if (changed) {
    app.session = null;
    render();
  }
});
`;
