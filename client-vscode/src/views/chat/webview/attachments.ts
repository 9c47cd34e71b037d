/**
 * The pictures waiting in the chat input: pasted (Ctrl+V), dropped, or attached from the
 * palette; each a thumbnail with a × to remove it before sending (docs/images.md).
 */
import { dataUrl, imageFrom, MAX_IMAGES } from '../../../shared/images';
import type { ImageData } from '../../../protocol';
import { fill, h } from './dom';

export class Attachments {
  private images: ImageData[] = [];
  private error = '';

  constructor(private readonly el: HTMLElement, private readonly onChange: () => void = () => undefined) {}

  /** Listen for pasted and dropped pictures on the input and the composer. */
  listen(input: HTMLElement, dropZone: HTMLElement): void {
    input.addEventListener('paste', (e: ClipboardEvent) => {
      const files = [...(e.clipboardData?.files ?? [])].filter((f) => f.type.startsWith('image/'));
      if (!files.length) return;
      e.preventDefault();
      void this.addFiles(files);
    });
    dropZone.addEventListener('dragover', (e: DragEvent) => {
      if ([...(e.dataTransfer?.items ?? [])].some((i) => i.kind === 'file')) e.preventDefault();
    });
    dropZone.addEventListener('drop', (e: DragEvent) => {
      const files = [...(e.dataTransfer?.files ?? [])];
      if (!files.length) return;
      e.preventDefault();
      void this.addFiles(files);
    });
  }

  async addFiles(files: File[]): Promise<void> {
    for (const f of files) this.add(imageFrom(new Uint8Array(await f.arrayBuffer()), f.name || 'pasted image'));
  }

  /** Attach one checked picture, or show why a file was refused. */
  add(image: ImageData | string): void {
    if (typeof image === 'string') this.error = image;
    else if (this.images.length >= MAX_IMAGES) this.error = `At most ${MAX_IMAGES} pictures in one message.`;
    else {
      this.images.push(image);
      this.error = '';
    }
    this.render();
  }

  /** The pictures to send, emptying the tray. */
  take(): ImageData[] {
    const taken = this.images;
    this.images = [];
    this.error = '';
    this.render();
    return taken;
  }

  get count(): number {
    return this.images.length;
  }

  private render(): void {
    const thumbs = this.images.map((img, i) =>
      h('span', { class: 'thumb', title: img.name },
        h('img', { src: dataUrl(img), alt: img.name }),
        h('button', { class: 'remove', title: `Remove ${img.name}`, 'aria-label': `Remove ${img.name}`, onclick: () => { this.images.splice(i, 1); this.render(); } }, '×')),
    );
    fill(this.el, ...thumbs, this.error ? h('span', { class: 'attach-error' }, this.error) : null);
    this.el.hidden = !thumbs.length && !this.error;
    this.onChange();
  }
}

/** The thumbnails of a sent message in the transcript. */
export function thumbnails(images: ImageData[] | undefined): HTMLElement | null {
  if (!images?.length) return null;
  // Kept across a window reload by name only (shared/chat/state.ts `storable`).
  return h('div', { class: 'thumbs' }, ...images.map((img) => (img.data ? h('img', { class: 'thumb', src: dataUrl(img), alt: img.name, title: img.name }) : h('span', { class: 'chip' }, `🖼 ${img.name}`))));
}
