/**
 * The console's entry (esbuild bundles from here): registers the views and starts the page.
 */
import { listenForFragmentTokens, showSessionOffer } from './session-offer.js';
import { app, listenForNavigation, missingView, render, VIEWS } from './shell.js';
import { loadItem, PAUSED_KEY, takeFragmentToken } from './storage.js';
import { groupView } from './view-group.js';
import { groupsView } from './view-groups.js';
import { messagesView } from './view-messages.js';
import { pendingView } from './view-pending.js';

VIEWS.groups = groupsView;
VIEWS.group = groupView;
VIEWS.messages = messagesView;
VIEWS.pending = pendingView;
VIEWS.missing = missingView;

listenForNavigation();
listenForFragmentTokens();
takeFragmentToken();
app.paused = loadItem(PAUSED_KEY) === '1';
void render();
showSessionOffer();
