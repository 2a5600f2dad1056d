import { render } from 'preact';
import { App } from './App.tsx';
import { bootSession } from './session.ts';

// Asked before the first render: the page's own data waits on the session.
void bootSession().catch(() => undefined);

render(<App />, document.getElementById('app')!);
