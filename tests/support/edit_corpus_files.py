r"""The base files the edit corpus (tests/support/edit_corpus.py) derives its cases from.

Written for the corpus, shaped like real code: each language with its own whitespace
habits, and near-identical lines repeated so that ambiguity occurs naturally.

The texts are stored readably and decoded by `BaseFile.lines`:
- with `tabs=w`, each leading run of `w` spaces becomes a tab (a tab-indented file is
  written with `w`-space levels; the rest of a partial run stays spaces: GNU style);
- `⇥` is a tab anywhere (mixed indentation), `␠` a space that must survive at a line end;
- `<U+XXXX>` is that code point (combining marks, zero-width joiners, variation selectors).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CODE_POINT = re.compile(r"<U\+([0-9A-F]{4,5})>")


@dataclass(frozen=True)
class BaseFile:
    """One base file: its text in the readable notation and how it is written to disk."""

    path: str
    lang: str
    unit: str
    """One indentation level as the file writes it: four or two spaces, or a tab."""
    source: str
    tabs: int = 0
    crlf: bool = False
    bom: bool = False
    final_newline: bool = True

    def lines(self) -> list[str]:
        """The file's lines, decoded, without line endings."""
        out = []
        for raw in self.source.strip("\n").split("\n"):
            line = raw
            if self.tabs:
                lead = len(line) - len(line.lstrip(" "))
                levels, rest = divmod(lead, self.tabs)
                line = "\t" * levels + " " * rest + line[lead:]
            line = line.replace("⇥", "\t").replace("␠", " ")
            out.append(_CODE_POINT.sub(lambda m: chr(int(m.group(1), 16)), line))
        return out


INVENTORY_PY = r'''
"""Stock levels for the warehouse service."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

LOW_STOCK = 5
MAX_BATCH = 250


@dataclass
class Item:
    sku: str
    name: str
    quantity: int = 0
    tags: list[str] = field(default_factory=list)


class Inventory:
    def __init__(self, items: list[Item] | None = None) -> None:
        self.items = {item.sku: item for item in items or []}
        self.history: list[tuple[str, int]] = []

    def add(self, sku: str, amount: int) -> int:
        if amount <= 0:
            raise ValueError(f"amount must be positive, got {amount}")
        item = self.items[sku]
        item.quantity += amount
        self.history.append((sku, amount))
        return item.quantity

    def remove(self, sku: str, amount: int) -> int:
        if amount <= 0:
            raise ValueError(f"amount must be positive, got {amount}")
        item = self.items[sku]
        if item.quantity < amount:
            raise ValueError(f"only {item.quantity} of {sku} left")
        item.quantity -= amount
        self.history.append((sku, -amount))
        return item.quantity

    def low_stock(self) -> list[Item]:
        result = []
        for item in self.items.values():
            if item.quantity < LOW_STOCK:␠
                result.append(item)
        return result

    def restock(self, batch: dict[str, int]) -> None:
        if len(batch) > MAX_BATCH:
            raise ValueError(f"batch too large: {len(batch)}")
        for sku, amount in batch.items():
            try:
                self.add(sku, amount)
            except KeyError:
                log.warning("unknown sku %s", sku)
            except ValueError:
                log.warning("bad amount for %s: %s", sku, amount)
'''

CLI_ARGS_PY = r"""
import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sync", description="Mirror a bucket.")
    parser.add_argument(
        "--source",
        required=True,
        help="bucket to read from",
    )
    parser.add_argument(
        "--target",
        required=True,
        help="bucket to write to",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=4,
        help="parallel uploads",
    )
    parser.add_argument("--dry-run", action="store_true", help="only print the plan")
    parser.add_argument("--verbose", "-v", action="count", default=0)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.workers < 1:
        print("workers must be at least 1", file=sys.stderr)
        return 2
    if args.source == args.target:
        print("source and target must differ", file=sys.stderr)
        return 2
    plan = make_plan(args.source, args.target)
    for step in plan:
        if args.dry_run:
            print(f"would copy {step}")
            continue
        copy(step, workers=args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
"""

I18N_REPORT_PY = r"""
# -*- coding: utf-8 -*-
# 報告書ジェネレーター: 月次の売上をまとめる 📊
from decimal import Decimal

GREETINGS = {
    "ja": "こんにちは、{name}さん",
    "zh": "你好，{name}",
    "ko": "안녕하세요, {name}님",
    "fr": "Bonjour {name}, voici votre re<U+0301>sume<U+0301>",
    "es": "Hola {name} 👋",
}

STATUS_ICONS = {
    "ok": "✅",
    "warn": "⚠<U+FE0F>",
    "fail": "❌",
    "dev": "👩<U+200D>💻",
}


def greet(lang: str, name: str) -> str:
    # 未知の言語は英語にフォールバックする
    template = GREETINGS.get(lang, "Hello {name}")
    return template.format(name=name)


def format_total(amount: Decimal, currency: str = "¥") -> str:
    # 金額は三桁区切り (例: ¥1,234,567)␠
    return f"{currency}{amount:,.0f}"


def summary_line(region: str, amount: Decimal, status: str) -> str:
    icon = STATUS_ICONS.get(status, "❔")
    return f"{icon} {region}: {format_total(amount)}"


def render(rows: list[tuple[str, Decimal, str]]) -> str:
    lines = ["📈 月次レポート", "=" * 20]
    for region, amount, status in rows:
        lines.append(summary_line(region, amount, status))
    lines.append("— fin —")
    return "\n".join(lines)
"""

WIN_SERVICE_PY = r"""
import os
import subprocess
from pathlib import Path

SERVICE_NAME = "BackupAgent"
LOG_DIR = Path(os.environ.get("PROGRAMDATA", "C:\\ProgramData")) / "backup"


def run(cmd: list[str]) -> str:
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {result.stderr.strip()}")
    return result.stdout


def install() -> None:
    exe = Path(__file__).with_name("agent.exe")
    run(["sc.exe", "create", SERVICE_NAME, f"binPath={exe}", "start=auto"])
    run(["sc.exe", "description", SERVICE_NAME, "Nightly backups"])
    LOG_DIR.mkdir(parents=True, exist_ok=True)


def start() -> None:
    run(["sc.exe", "start", SERVICE_NAME])


def stop() -> None:
    run(["sc.exe", "stop", SERVICE_NAME])


def status() -> str:
    out = run(["sc.exe", "query", SERVICE_NAME])
    for line in out.splitlines():
        if "STATE" in line:
            return line.split()[-1]
    return "UNKNOWN"


def uninstall() -> None:
    stop()
    run(["sc.exe", "delete", SERVICE_NAME])
"""

LEGACY_TABS_PY = r"""
# Old module kept for the batch jobs; it is indented with tabs.
import csv
import sys


def read_rows(path):
    rows = []
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            if not row.get("id"):
                continue
            rows.append(row)
    return rows


def totals(rows):
    out = {}
    for row in rows:
        key = row["account"]
        out[key] = out.get(key, 0) + int(row["cents"])
    return out


def main(argv):
    if len(argv) != 2:
        print("usage: legacy.py FILE", file=sys.stderr)
        return 2
    rows = read_rows(argv[1])
    for key, cents in sorted(totals(rows).items()):
        print("%s\t%d.%02d" % (key, cents // 100, cents % 100))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
"""

API_CLIENT_JS = r"""
'use strict';

const BASE_URL = process.env.API_URL || 'http://localhost:8080';
const RETRIES = 3;

async function request(method, path, body) {
  const res = await fetch(`${BASE_URL}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) {
    throw new Error(`${method} ${path} failed: ${res.status}`);
  }
  return res.json();
}

async function withRetry(fn) {
  let lastError;
  for (let attempt = 0; attempt < RETRIES; attempt++) {
    try {
      return await fn();
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
    }
  }
  throw lastError;
}

export async function getUser(id) {
  try {
    return await withRetry(() => request('GET', `/users/${id}`));
  } catch (err) {
    console.error(err);
    return null;
  }
}

export async function updateUser(id, patch) {
  try {
    return await withRetry(() => request('PATCH', `/users/${id}`, patch));
  } catch (err) {
    console.error(err);
    return null;
  }
}

export async function deleteUser(id) {
  try {
    await withRetry(() => request('DELETE', `/users/${id}`));
    return true;
  } catch (err) {
    console.error(err);
    return false;
  }
}
"""

LEGACY_WIDGET_JS = r"""
/* Legacy widget, kept for the old admin pages. */
(function ($) {
    'use strict';

    var DEFAULTS = {
        delay: 300,
        minLength: 2,
        url: '/api/search'
    };

    function Autocomplete(el, options) {
        this.$el = $(el);
        this.options = $.extend({}, DEFAULTS, options);
        this.timer = null;
        this.$el.on('keyup', $.proxy(this.onKeyUp, this));
    }

    Autocomplete.prototype.onKeyUp = function () {
        var self = this;
        clearTimeout(this.timer);
        this.timer = setTimeout(function () {
            self.search(self.$el.val());
        }, this.options.delay);
    };
␠␠␠␠
    Autocomplete.prototype.search = function (term) {
        var self = this;
        if (term.length < this.options.minLength) {
            return;
        }
        $.getJSON(this.options.url, { q: term }, function (data) {
            self.render(data.items || []);
        });
    };
␠␠␠␠
    Autocomplete.prototype.render = function (items) {
        var html = '';␠
        for (var i = 0; i < items.length; i++) {
            html += '<li>' + items[i].label + '</li>';
        }
        this.$el.next('ul').html(html);
    };

    $.fn.autocomplete = function (options) {
        return this.each(function () {
            new Autocomplete(this, options);
        });
    };
})(jQuery);
"""

MIXED_INDENT_JS = r"""
// Two authors, two habits: this file mixes tab and space indentation.
const fs = require('fs');
const path = require('path');

function readConfig(dir) {
⇥const file = path.join(dir, 'config.json');
⇥if (!fs.existsSync(file)) {
⇥⇥return {};
⇥}
⇥return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function writeConfig(dir, config) {
    const file = path.join(dir, 'config.json');
    const text = JSON.stringify(config, null, 2);
    fs.writeFileSync(file, text + '\n');
    return file;
}

function mergeConfig(base, extra) {
⇥const out = { ...base };
⇥for (const [key, value] of Object.entries(extra)) {
⇥    if (value === undefined) {
⇥        continue;
⇥    }
⇥    out[key] = value;
⇥}
⇥return out;
}

module.exports = {
    readConfig,
⇥writeConfig,
    mergeConfig,
};
"""

STORE_TS = r"""
export interface Todo {
  id: number;
  title: string;
  done: boolean;
  tags: string[];
}

export type Action =
  | { type: 'add'; title: string }
  | { type: 'toggle'; id: number }
  | { type: 'remove'; id: number }
  | { type: 'rename'; id: number; title: string };

export interface State {
  todos: Todo[];
  nextId: number;
}

export const initialState: State = { todos: [], nextId: 1 };

export function reducer(state: State, action: Action): State {
  switch (action.type) {
    case 'add':
      return {
        todos: [...state.todos, { id: state.nextId, title: action.title, done: false }],
        nextId: state.nextId + 1,
      };
    case 'toggle':
      return {
        ...state,
        todos: state.todos.map((t) => (t.id === action.id ? { ...t, done: !t.done } : t)),
      };
    case 'remove':
      return {
        ...state,
        todos: state.todos.filter((t) => t.id !== action.id),
      };
    case 'rename':
      return {
        ...state,
        todos: state.todos.map((t) => (t.id === action.id ? { ...t, title: action.title } : t)),
      };
    default:
      return state;
  }
}

export function visible(state: State, filter: 'all' | 'open' | 'done'): Todo[] {
  if (filter === 'open') {
    return state.todos.filter((t) => !t.done);
  }
  if (filter === 'done') {
    return state.todos.filter((t) => t.done);
  }
  return state.todos;
}
"""

BUTTON_TSX = r"""
import React, { useCallback, useState } from 'react';

type Props = {
  label: string;
  onClick: () => Promise<void>;
  disabled?: boolean;
  variant?: 'primary' | 'secondary';
};

export function Button({ label, onClick, disabled = false, variant = 'primary' }: Props) {
  const [busy, setBusy] = useState(false);

  const handle = useCallback(async () => {
    setBusy(true);
    try {
      await onClick();
    } finally {
      setBusy(false);
    }
  }, [onClick]);

  return (
    <button
      className={`btn btn-${variant}`}
      disabled={disabled || busy}
      onClick={handle}
    >
      {busy ? <span className="spinner" /> : null}
      <span className="label">{label}</span>
    </button>
  );
}

export function ButtonRow({ children }: { children: React.ReactNode }) {
  return (
    <div className="btn-row">
      {children}
    </div>
  );
}
"""

SERVER_GO = r"""
package server

import (
    "encoding/json"
    "errors"
    "fmt"
    "net/http"
    "time"
)

type Server struct {
    store   Store
    timeout time.Duration
    logger  Logger
}

var ErrNotFound = errors.New("not found")

func New(store Store, logger Logger) *Server {
    return &Server{store: store, timeout: 5 * time.Second, logger: logger}
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
    id := r.URL.Query().Get("id")
    item, err := s.store.Get(r.Context(), id)
    if err != nil {
        if errors.Is(err, ErrNotFound) {
            http.Error(w, "not found", http.StatusNotFound)
            return
        }
        http.Error(w, err.Error(), http.StatusInternalServerError)
        return
    }
    writeJSON(w, item)
}

func (s *Server) handlePut(w http.ResponseWriter, r *http.Request) {
    var item Item
    if err := json.NewDecoder(r.Body).Decode(&item); err != nil {
        http.Error(w, err.Error(), http.StatusBadRequest)
        return
    }
    if err := s.store.Put(r.Context(), item); err != nil {
        http.Error(w, err.Error(), http.StatusInternalServerError)
        return
    }
    w.WriteHeader(http.StatusNoContent)
}

func writeJSON(w http.ResponseWriter, v any) {
    w.Header().Set("Content-Type", "application/json")
    if err := json.NewEncoder(w).Encode(v); err != nil {
        fmt.Println("encode:", err)
    }
}
"""

STORE_GO = r"""
package server

import (
    "context"
    "sync"
)

type Item struct {
    ID    string `json:"id"`
    Name  string `json:"name"`
    Price int64  `json:"price"`
}

type Store interface {
    Get(ctx context.Context, id string) (Item, error)
    Put(ctx context.Context, item Item) error
}

type memStore struct {
    mu    sync.RWMutex
    items map[string]Item
}

func NewMemStore() Store {
    return &memStore{items: make(map[string]Item)}
}

func (m *memStore) Get(ctx context.Context, id string) (Item, error) {
    if err := ctx.Err(); err != nil {
        return Item{}, err
    }
    m.mu.RLock()
    defer m.mu.RUnlock()
    item, ok := m.items[id]
    if !ok {
        return Item{}, ErrNotFound
    }
    return item, nil
}

func (m *memStore) Put(ctx context.Context, item Item) error {
    if err := ctx.Err(); err != nil {
        return err
    }
    m.mu.Lock()
    defer m.mu.Unlock()
    m.items[item.ID] = item
    return nil
}

func (m *memStore) Delete(ctx context.Context, id string) error {
    if err := ctx.Err(); err != nil {
        return err
    }
    m.mu.Lock()
    defer m.mu.Unlock()
    delete(m.items, id)
    return nil
}
"""

LIST_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
    int key;
    char *value;
    struct node *next;
};

static struct node *node_new(int key, const char *value)
{
    struct node *n = malloc(sizeof(*n));
    if (!n)
        return NULL;
    n->key = key;␠
    n->value = strdup(value);
    if (!n->value) {
        free(n);
        return NULL;
    }
    n->next = NULL;
    return n;
}

int list_insert(struct node **head, int key, const char *value)
{
    struct node *n = node_new(key, value);
    if (!n)
        return -1;
    n->next = *head;
    *head = n;
    return 0;
}

struct node *list_find(struct node *head, int key)
{
    for (struct node *n = head; n; n = n->next) {
        if (n->key == key)
            return n;
    }
    return NULL;
}

void list_free(struct node *head)
{
    while (head) {
        struct node *next = head->next;
        free(head->value);
        free(head);
        head = next;
    }
}

void list_print(const struct node *head)
{
    for (const struct node *n = head; n; n = n->next)
        printf("%d: %s\n", n->key, n->value);
}
"""

RING_C = r"""
#include "ring.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
    uint8_t *data;
    size_t head;
    size_t tail;
    size_t size;
} ring_t;

int ring_init(ring_t *r, size_t size)
{
    if (size == 0 || (size & (size - 1)) != 0) {
        return -EINVAL;
    }
    r->data = calloc(size, 1);
    if (r->data == NULL) {
        return -ENOMEM;
    }
    r->head = 0;
    r->tail = 0;
    r->size = size;
    return 0;
}

size_t ring_used(const ring_t *r)
{
    return (r->head - r->tail) & (r->size - 1);
}

int ring_push(ring_t *r, uint8_t byte)
{
    if (ring_used(r) == r->size - 1) {
        return -ENOSPC;
    }
    r->data[r->head] = byte;
    r->head = (r->head + 1) & (r->size - 1);
    return 0;
}

int ring_pop(ring_t *r, uint8_t *byte)
{
    if (ring_used(r) == 0) {
        return -EAGAIN;
    }
    *byte = r->data[r->tail];
    r->tail = (r->tail + 1) & (r->size - 1);
    return 0;
}

void ring_free(ring_t *r)
{
    free(r->data);
    r->data = NULL;
    r->head = r->tail = 0;
}
"""

GNU_GETOPT_C = r"""
#include <config.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static int verbose_flag;

int
parse_options (int argc, char **argv)
{
  int c;

  while (1)
    {
      static struct option long_options[] =
        {
          {"verbose", no_argument,       &verbose_flag, 1},
          {"brief",   no_argument,       &verbose_flag, 0},
          {"add",     no_argument,       0, 'a'},
          {"delete",  required_argument, 0, 'd'},
          {0, 0, 0, 0}
        };
      int option_index = 0;

      c = getopt_long (argc, argv, "ad:",
                       long_options, &option_index);
      if (c == -1)
        break;

      switch (c)
        {
        case 0:
          if (long_options[option_index].flag != 0)
            break;
          printf ("option %s", long_options[option_index].name);
          if (optarg)
            printf (" with arg %s", optarg);
          printf ("\n");
          break;

        case 'a':
          puts ("option -a\n");
          break;

        case 'd':
          printf ("option -d with value `%s'\n", optarg);
          break;

        default:
          abort ();
        }
    }
  return 0;
}
"""

CONFIG_RS = r"""
use std::collections::HashMap;
use std::fs;
use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(String),
    Int(i64),
    Bool(bool),
}

#[derive(Debug)]
pub enum ConfigError {
    Io(std::io::Error),
    Parse { line: usize, message: String },
}

impl From<std::io::Error> for ConfigError {
    fn from(err: std::io::Error) -> Self {
        ConfigError::Io(err)
    }
}

pub fn load(path: &Path) -> Result<HashMap<String, Value>, ConfigError> {
    let text = fs::read_to_string(path)?;
    let mut out = HashMap::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(ConfigError::Parse {
                line: n + 1,
                message: format!("expected key = value, got {line:?}"),
            });
        };
        out.insert(key.trim().to_string(), parse_value(value.trim()));
    }
    Ok(out)
}

fn parse_value(raw: &str) -> Value {
    match raw {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        _ => match raw.parse::<i64>() {
            Ok(n) => Value::Int(n),
            Err(_) => Value::Str(raw.trim_matches('"').to_string()),
        },
    }
}
"""

CACHE_RS = r"""
use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

pub struct LruCache<K, V> {
    capacity: usize,
    map: HashMap<K, V>,
    order: VecDeque<K>,
}

impl<K: Clone + Eq + Hash, V> LruCache<K, V> {
    pub fn new(capacity: usize) -> Self {
        assert!(capacity > 0, "capacity must be positive");
        Self {
            capacity,
            map: HashMap::with_capacity(capacity),
            order: VecDeque::with_capacity(capacity),
        }
    }

    pub fn get(&mut self, key: &K) -> Option<&V> {
        if !self.map.contains_key(key) {
            return None;
        }
        self.touch(key);
        self.map.get(key)
    }

    pub fn put(&mut self, key: K, value: V) {
        if self.map.contains_key(&key) {
            self.touch(&key);
        } else {
            if self.map.len() == self.capacity {
                if let Some(old) = self.order.pop_front() {
                    self.map.remove(&old);
                }
            }
            self.order.push_back(key.clone());
        }
        self.map.insert(key, value);
    }

    fn touch(&mut self, key: &K) {
        if let Some(pos) = self.order.iter().position(|k| k == key) {
            let k = self.order.remove(pos).unwrap();
            self.order.push_back(k);
        }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}
"""

ORDER_SERVICE_JAVA = r"""
package com.example.shop;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

public class OrderService {
    private static final BigDecimal FREE_SHIPPING = new BigDecimal("50.00");
    private static final BigDecimal SHIPPING_FEE = new BigDecimal("4.99");

    private final OrderRepository repository;
    private final PaymentGateway payments;

    public OrderService(OrderRepository repository, PaymentGateway payments) {
        this.repository = Objects.requireNonNull(repository);
        this.payments = Objects.requireNonNull(payments);
    }

    public Order place(Customer customer, List<LineItem> items) {
        if (customer == null) {
            throw new IllegalArgumentException("customer is required");
        }
        if (items == null || items.isEmpty()) {
            throw new IllegalArgumentException("an order needs at least one item");
        }
        BigDecimal total = BigDecimal.ZERO;
        for (LineItem item : items) {
            total = total.add(item.price().multiply(BigDecimal.valueOf(item.quantity())));
        }
        if (total.compareTo(FREE_SHIPPING) < 0) {
            total = total.add(SHIPPING_FEE);
        }
        Order order = new Order(customer, new ArrayList<>(items), total);
        payments.charge(customer, total);
        repository.save(order);
        return order;
    }

    public void cancel(Order order) {
        if (order == null) {
            throw new IllegalArgumentException("order is required");
        }
        if (order.isShipped()) {
            throw new IllegalStateException("order already shipped");
        }
        payments.refund(order.customer(), order.total());
        repository.delete(order);
    }
}
"""

MATRIX_JAVA = r"""
package com.example.math;

import java.util.Arrays;

public final class Matrix {
    private final int rows;
    private final int cols;
    private final double[] data;

    public Matrix(int rows, int cols) {
        if (rows <= 0 || cols <= 0) {
            throw new IllegalArgumentException("dimensions must be positive");
        }
        this.rows = rows;
        this.cols = cols;␠␠
        this.data = new double[rows * cols];
    }

    public double get(int r, int c) {
        return data[r * cols + c];
    }

    public void set(int r, int c, double value) {
        data[r * cols + c] = value;
    }

    public Matrix multiply(Matrix other) {
        if (cols != other.rows) {
            throw new IllegalArgumentException("shape mismatch");
        }
        Matrix out = new Matrix(rows, other.cols);
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < other.cols; j++) {
                double sum = 0.0;
                for (int k = 0; k < cols; k++) {
                    sum += get(i, k) * other.get(k, j);
                }
                out.set(i, j, sum);
            }
        }
        return out;
    }

    public Matrix transpose() {
        Matrix out = new Matrix(cols, rows);
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                out.set(j, i, get(i, j));
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return "Matrix" + Arrays.toString(data);
    }
}
"""

PROGRAM_CS = r"""
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Inventory.Cli
{
    internal static class Program
    {
        private const string DefaultFile = "inventory.csv";

        private static int Main(string[] args)
        {
            var path = args.Length > 0 ? args[0] : DefaultFile;
            if (!File.Exists(path))
            {
                Console.Error.WriteLine($"File not found: {path}");
                return 1;
            }
␠␠␠␠␠␠␠␠␠␠␠␠
            var rows = File.ReadAllLines(path)
                .Skip(1)
                .Select(line => line.Split(','))
                .Where(parts => parts.Length == 3)
                .ToList();
␠␠␠␠␠␠␠␠␠␠␠␠
            if (rows.Count == 0)
            {
                Console.Error.WriteLine("No rows.");
                return 1;
            }

            foreach (var parts in rows)
            {
                var name = parts[0].Trim();
                var count = int.Parse(parts[1]);
                var price = decimal.Parse(parts[2]);
                Console.WriteLine($"{name,-20} {count,5} {price,10:C}");
            }

            return 0;
        }
    }
}
"""

CI_YML = r"""
name: ci

on:
  push:
    branches: [main]
  pull_request:

jobs:
  test:
    runs-on: ubuntu-latest␠
    strategy:
      matrix:
        python: ["3.11", "3.12"]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python }}
      - name: Install
        run: pip install -e '.[dev]'
      - name: Test
        run: pytest -q
        env:
          PYTHONHASHSEED: "0"

  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Install
        run: pip install ruff mypy
      - name: Lint
        run: |
          ruff check .
          ruff format --check .
          mypy src
"""

DEPLOY_YAML = r"""
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
    tier: frontend
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
        tier: frontend
    spec:
      containers:
        - name: web
          image: registry.example.com/web:1.4.2
          ports:
            - containerPort: 8080
          env:
            - name: LOG_LEVEL
              value: info
            - name: CACHE_URL
              value: redis://cache:6379
          resources:
            limits:
              cpu: 500m
              memory: 256Mi
        - name: sidecar
          image: registry.example.com/proxy:2.0.1
          ports:
            - containerPort: 9090
          env:
            - name: LOG_LEVEL
              value: info
          resources:
            limits:
              cpu: 100m
              memory: 64Mi
"""

MAKEFILE = r"""
CC      ?= cc
CFLAGS  ?= -O2 -Wall -Wextra␠
LDFLAGS ?=
PREFIX  ?= /usr/local

SRC := main.c list.c ring.c parser.c
OBJ := $(SRC:.c=.o)
BIN := tool

.PHONY: all clean install test

all: $(BIN)

$(BIN): $(OBJ)
    $(CC) $(LDFLAGS) -o $@ $^

%.o: %.c
    $(CC) $(CFLAGS) -c $< -o $@

test: $(BIN)
    ./$(BIN) --self-test
    @echo "tests passed"

install: $(BIN)
    install -d $(DESTDIR)$(PREFIX)/bin
    install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/$(BIN)

clean:
    rm -f $(OBJ) $(BIN)
    @echo "cleaned"
"""

DOCS_MK = r"""
DOCS_SRC := $(wildcard docs/*.md)
DOCS_OUT := $(patsubst docs/%.md,build/docs/%.html,$(DOCS_SRC))
PANDOC   ?= pandoc

.PHONY: docs docs-clean docs-serve

docs: $(DOCS_OUT)

build/docs/%.html: docs/%.md docs/template.html
    @mkdir -p $(dir $@)
    $(PANDOC) --standalone --template docs/template.html \
        --metadata title="$(basename $(notdir $<))" \
        -o $@ $<

build/docs/index.html: README.md docs/template.html
    @mkdir -p $(dir $@)
    $(PANDOC) --standalone --template docs/template.html \
        --metadata title="Home" \
        -o $@ $<

docs-serve: docs
    cd build/docs && python3 -m http.server 8000

docs-clean:
    rm -rf build/docs
"""

PACKAGE_JSON = r"""
{
  "name": "@example/widgets",
  "version": "2.3.1",
  "description": "Small UI widgets",
  "main": "dist/index.js",
  "types": "dist/index.d.ts",
  "scripts": {
    "build": "tsc -p tsconfig.json",
    "test": "vitest run",
    "lint": "eslint \"src/**/*.{ts,tsx}\"",
    "format": "prettier --write \"src/**/*.{ts,tsx}\""
  },
  "dependencies": {
    "react": "^18.2.0",
    "react-dom": "^18.2.0"
  },
  "devDependencies": {
    "typescript": "^5.4.0",
    "vitest": "^1.5.0",
    "eslint": "^8.57.0",
    "prettier": "^3.2.5"
  },
  "engines": {
    "node": ">=18"
  },
  "files": [
    "dist"
  ]
}
"""

DEPLOY_SH = r"""
#!/usr/bin/env bash
set -euo pipefail

APP="web"
REGISTRY="registry.example.com"
TAG="${1:-latest}"

log() {
  printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*"
}

build() {
  log "building ${APP}:${TAG}"
  docker build -t "${REGISTRY}/${APP}:${TAG}" .
}

push() {
  log "pushing ${APP}:${TAG}"
  docker push "${REGISTRY}/${APP}:${TAG}"
}

deploy() {
  log "deploying ${APP}:${TAG}"
  kubectl set image "deployment/${APP}" "${APP}=${REGISTRY}/${APP}:${TAG}"
  if ! kubectl rollout status "deployment/${APP}" --timeout=120s; then
    log "rollout failed, rolling back"
    kubectl rollout undo "deployment/${APP}"
    exit 1
  fi
}

notify() {
⇥cat <<-EOF | curl -s -X POST -d @- "${HOOK_URL}"
⇥{"text": "deployed ${APP}:${TAG}"}
⇥EOF
}

build
push
deploy
notify
"""

REPORT_RB = r"""
# frozen_string_literal: true

require 'csv'
require 'json'

module Reports
  class Monthly
    attr_reader :rows

    def initialize(path)
      @rows = CSV.read(path, headers: true).map(&:to_h)
    end

    def total
      rows.sum { |row| row['amount'].to_f }
    end

    def by_region
      rows.group_by { |row| row['region'] }.transform_values do |items|
        items.sum { |row| row['amount'].to_f }
      end
    end

    def top(n = 3)
      by_region.sort_by { |_, amount| -amount }.first(n)
    end

    def to_json(*_args)
      JSON.generate(
        total: total,
        regions: by_region,
        top: top.map { |region, amount| { region: region, amount: amount } }
      )
    end
  end
end
"""

SCHEMA_SQL = r"""
-- Schema for the shop database.
CREATE TABLE customers (
    id          BIGSERIAL PRIMARY KEY,
    email       TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE orders (
    id          BIGSERIAL PRIMARY KEY,
    customer_id BIGINT NOT NULL REFERENCES customers (id),
    total_cents BIGINT NOT NULL CHECK (total_cents >= 0),
    status      TEXT NOT NULL DEFAULT 'open',␠
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE order_items (
    id          BIGSERIAL PRIMARY KEY,
    order_id    BIGINT NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    sku         TEXT NOT NULL,
    quantity    INTEGER NOT NULL CHECK (quantity > 0),
    price_cents BIGINT NOT NULL CHECK (price_cents >= 0),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX orders_customer_idx ON orders (customer_id);
CREATE INDEX order_items_order_idx ON order_items (order_id);

CREATE VIEW open_orders AS
    SELECT o.id, c.email, o.total_cents
    FROM orders o
    JOIN customers c ON c.id = o.customer_id
    WHERE o.status = 'open';
"""

README_MD = r"""
# Widgets

Small, dependency-free UI widgets.␠␠
小さな UI ウィジェット集です。

## Install

```sh
npm install @example/widgets
```

## Usage

```js
import { Button } from '@example/widgets';

const button = new Button({ label: 'Save' });
button.mount(document.body);
```

## Options

- `label`: the text on the button (required)
- `variant`: `primary` or `secondary`
- `disabled`: start disabled
    - a disabled button ignores clicks
    - it is still focusable

## Contributing

Run the tests before sending a patch:␠␠
`npm test`

Questions? Open an issue 🙂
"""

INDEX_HTML = r"""
<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Dashboard</title>
    <link rel="stylesheet" href="/static/site.css">
  </head>
  <body>
    <nav class="top">
      <ul>
        <li><a href="/">Home</a></li>
        <li><a href="/reports">Reports</a></li>
        <li><a href="/settings">Settings</a></li>
      </ul>
    </nav>
    <main>
      <section class="card">
        <h2>Sales</h2>
        <p class="value" id="sales">--</p>
      </section>
      <section class="card">
        <h2>Orders</h2>
        <p class="value" id="orders">--</p>
      </section>
      <section class="card">
        <h2>Returns</h2>
        <p class="value" id="returns">--</p>
      </section>
    </main>
    <script src="/static/dashboard.js"></script>
  </body>
</html>
"""

DOCKERFILE = r"""
FROM python:3.12-slim AS build

WORKDIR /src
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*

COPY pyproject.toml README.md ./
COPY src ./src
RUN pip wheel --no-deps --wheel-dir /wheels .

FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1

RUN useradd --create-home app
WORKDIR /home/app
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl \
    && rm -rf /wheels

USER app
EXPOSE 8000
CMD ["gunicorn", "--bind", "0.0.0.0:8000", "app:create_app()"]
"""

SITE_CSS = r"""
:root {
  --fg: #1d1d1f;
  --bg: #ffffff;
  --accent: #0a84ff;
}

body {
  margin: 0;
  font-family: system-ui, sans-serif;
  color: var(--fg);
  background: var(--bg);
}

.card {
  padding: 16px;
  border-radius: 8px;
  background: #f5f5f7;
}

.card h2 {
  margin: 0 0 8px;
  font-size: 14px;
  color: #6e6e73;
}

.card .value {
  margin: 0;
  font-size: 32px;
  font-weight: 600;
}

@media (prefers-color-scheme: dark) {
  :root {
    --fg: #f5f5f7;
    --bg: #1d1d1f;
  }
  .card {
    background: #2c2c2e;
  }
}
"""

FOUR, TWO, TAB = "    ", "  ", "\t"

BASE_FILES: tuple[BaseFile, ...] = (
    BaseFile("py/inventory.py", "python", FOUR, INVENTORY_PY),
    BaseFile("py/cli_args.py", "python", FOUR, CLI_ARGS_PY),
    BaseFile("py/i18n_report.py", "python", FOUR, I18N_REPORT_PY),
    BaseFile("py/win_service.py", "python", FOUR, WIN_SERVICE_PY, crlf=True),
    BaseFile("py/legacy_tabs.py", "python", TAB, LEGACY_TABS_PY, tabs=4),
    BaseFile("js/api_client.js", "js", TWO, API_CLIENT_JS),
    BaseFile("js/legacy_widget.js", "js", FOUR, LEGACY_WIDGET_JS, crlf=True),
    BaseFile("js/mixed_indent.js", "js", FOUR, MIXED_INDENT_JS),
    BaseFile("ts/store.ts", "ts", TWO, STORE_TS),
    BaseFile("ts/Button.tsx", "ts", TWO, BUTTON_TSX),
    BaseFile("go/server.go", "go", TAB, SERVER_GO, tabs=4),
    BaseFile("go/store.go", "go", TAB, STORE_GO, tabs=4),
    BaseFile("c/list.c", "c", TAB, LIST_C, tabs=4),
    BaseFile("c/ring.c", "c", FOUR, RING_C),
    BaseFile("c/gnu_getopt.c", "c", TWO, GNU_GETOPT_C, tabs=8),
    BaseFile("rust/config.rs", "rust", FOUR, CONFIG_RS),
    BaseFile("rust/cache.rs", "rust", FOUR, CACHE_RS),
    BaseFile("java/OrderService.java", "java", FOUR, ORDER_SERVICE_JAVA),
    BaseFile("java/Matrix.java", "java", FOUR, MATRIX_JAVA),
    BaseFile("cs/Program.cs", "csharp", FOUR, PROGRAM_CS, crlf=True, bom=True, final_newline=False),
    BaseFile(".github/workflows/ci.yml", "yaml", TWO, CI_YML),
    BaseFile("k8s/deploy.yaml", "yaml", TWO, DEPLOY_YAML),
    BaseFile("Makefile", "make", TAB, MAKEFILE, tabs=4),
    BaseFile("docs.mk", "make", TAB, DOCS_MK, tabs=4),
    BaseFile("package.json", "json", TWO, PACKAGE_JSON, final_newline=False),
    BaseFile("scripts/deploy.sh", "sh", TWO, DEPLOY_SH),
    BaseFile("lib/report.rb", "ruby", TWO, REPORT_RB),
    BaseFile("db/schema.sql", "sql", FOUR, SCHEMA_SQL, crlf=True),
    BaseFile("README.md", "markdown", FOUR, README_MD),
    BaseFile("web/index.html", "html", TWO, INDEX_HTML),
    BaseFile("Dockerfile", "docker", FOUR, DOCKERFILE),
    BaseFile("web/site.css", "css", TWO, SITE_CSS),
)
"""Every base file; the corpus cycles through them in this order."""
