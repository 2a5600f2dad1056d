// First: a browser language tag Intl refuses is shadowed before any library formats with it.
import './locale.ts';
import { render } from 'preact';
import { App } from './App.tsx';
import { bootSession } from './session.ts';

// Asked before the first render: the page's own data waits on the session.
void bootSession().catch(() => undefined);

render(<App />, document.getElementById('app')!);
