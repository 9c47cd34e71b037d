/**
 * What every component may need and nothing owns: the store, posting a message to the
 * extension host, and rendering model markdown; given once by `main.tsx` through a
 * Preact context. Also `pure`, which skips re-rendering a component whose props did not
 * change (the reducer keeps unchanged items and cards the same objects).
 */
import { Component, type ComponentChildren, type ComponentType, createContext, type FunctionComponent, h } from 'preact';
import { useContext, useLayoutEffect, useState } from 'preact/hooks';
import type { FromWebview } from '../../../shared/chat/messages';
import type { Store, ViewState } from './store';

export type Post = (m: FromWebview) => void;

export interface Env {
  store: Store;
  post: Post;
  /** Model markdown as sanitised HTML (markdown.ts). */
  markdown: (text: string) => string;
}

export const EnvContext = createContext<Env | undefined>(undefined);

export function useEnv(): Env {
  const env = useContext(EnvContext);
  if (!env) throw new Error('the chat components render inside EnvContext');
  return env;
}

/** The view state, re-rendering the caller when the store changes (subscribed as soon
 * as it is in the page, so a message that comes before the first frame is not missed). */
export function useView(): ViewState {
  const { store } = useEnv();
  const view = store.get();
  const [, setSeen] = useState(0);
  useLayoutEffect(() => {
    const rerender = () => setSeen((n) => n + 1);
    if (store.get() !== view) rerender();
    return store.subscribe(rerender);
  }, [store]);
  return view;
}

function shallowSame<P extends object>(a: P, b: P): boolean {
  const ka = Object.keys(a) as (keyof P)[];
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/** `inner`, re-rendered only when `same(previous, next)` says its props changed. */
export function pure<P extends object>(inner: FunctionComponent<P>, same: (a: P, b: P) => boolean = shallowSame): ComponentType<P> {
  return class Pure extends Component<P> {
    static displayName = `pure(${inner.name})`;
    shouldComponentUpdate(next: P): boolean {
      return !same(this.props, next);
    }
    render(): ComponentChildren {
      return h(inner as FunctionComponent<object>, this.props);
    }
  };
}
