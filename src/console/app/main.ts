/**
 * The console's entry (esbuild bundles from here): registers the views and starts the page.
 */
import { listenForFragmentTokens, showSessionOffer } from './session-offer.js';
import { app, listenForNavigation, missingView, render, VIEWS } from './shell.js';
import { loadItem, PAUSED_KEY, takeFragmentToken } from './storage.js';

VIEWS.missing = missingView;

/** Starts the console once the views are registered. */
export function boot(): void {
  listenForNavigation();
  listenForFragmentTokens();
  takeFragmentToken();
  app.paused = loadItem(PAUSED_KEY) === '1';
  void render();
  showSessionOffer();
}
