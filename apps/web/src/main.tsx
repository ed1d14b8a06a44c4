import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './index.css';
import { App } from './App';
import { appStore } from './store/app-store';
import { parseUrlState, serializeUrlState, type UrlState } from './store/url-state';
import { FleetPage } from './fleet/FleetPage';
import { replicaName } from './live/replica-path';
import { HTML_LANG, language, S, setLanguage } from './i18n/strings';

// URL -> store once at start; store -> URL (replaceState) whenever a shareable field changes.
const prefersDark = window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;
appStore.setState(parseUrlState(location.search, prefersDark));

// `replica` (which fleet replica this page watches) is not a URL-state field but must survive rewrites.
const urlOf = (s: UrlState) => {
  const url = serializeUrlState(s);
  return replicaName ? `${url}${url ? '&' : '?'}replica=${encodeURIComponent(replicaName)}` : url;
};
const isFleetPage = new URLSearchParams(location.search).has('fleet');
let lastUrl = '';
function applyDocumentState() {
  const s = appStore.getState();
  const url = urlOf(s);
  if (url !== lastUrl) {
    lastUrl = url;
    history.replaceState(null, '', `${location.pathname}${url}${location.hash}`);
  }
  const root = document.documentElement;
  if (s.lang !== language()) setLanguage(s.lang);
  root.lang = HTML_LANG[s.lang];
  root.classList.toggle('dark', s.theme === 'dark');
  root.classList.toggle('large', s.large);
  // a replica's page opened from the fleet view says which replica it is, also in the tab's title
  document.title = replicaName ? `${S.fleet.replicaBadge(replicaName)} · ${S.appName}` : S.appName;
}
if (isFleetPage) document.title = `${S.fleet.title} · ${S.appName}`;
else {
  applyDocumentState();
  appStore.subscribe(applyDocumentState);
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    {isFleetPage ? <FleetPage /> : <App />}
  </StrictMode>,
);
