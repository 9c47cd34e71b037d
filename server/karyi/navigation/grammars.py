"""The tree-sitter grammars behind the syntactic fallback, and what declares a name in each.

Each grammar is a PyPI wheel of the tree-sitter project (`tree-sitter-go`, …) loaded on
first use. Its query captures a declared name as `@name` and the declaration as
`@<kind>` (the word the model reads: function, method, struct, …); `@container` is a
class the declaration belongs to that is not around it in the tree (a Go method's
receiver, C++'s `Class::method`); `@impl` is a scope that is no symbol itself (a Rust
`impl` block) whose `@name` qualifies what it holds
(docs/context.md#where-navigation-answers-come-from).
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Language, Query

GO = """
(function_declaration name: (identifier) @name) @function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: [
    (type_identifier) @container
    (pointer_type (type_identifier) @container)
    (generic_type type: (type_identifier) @container)
    (pointer_type (generic_type type: (type_identifier) @container))]))
  name: (field_identifier) @name) @method
(type_spec name: (type_identifier) @name type: (struct_type)) @struct
(type_spec name: (type_identifier) @name type: (interface_type)) @interface
(type_spec name: (type_identifier) @name) @class
(type_alias name: (type_identifier) @name) @type
(field_declaration name: (field_identifier) @name) @field
(method_elem name: (field_identifier) @name) @method
(source_file (const_declaration (const_spec name: (identifier) @name) @constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @variable))
"""

RUST = """
(function_item name: (identifier) @name) @function
(function_signature_item name: (identifier) @name) @function
(struct_item name: (type_identifier) @name) @struct
(union_item name: (type_identifier) @name) @struct
(enum_item name: (type_identifier) @name) @enum
(enum_variant name: (identifier) @name) @enum_member
(trait_item name: (type_identifier) @name) @interface
(type_item name: (type_identifier) @name) @type
(mod_item name: (identifier) @name) @module
(const_item name: (identifier) @name) @constant
(static_item name: (identifier) @name) @variable
(macro_definition name: (identifier) @name) @function
(field_declaration name: (field_identifier) @name) @field
(impl_item type: [
  (type_identifier) @name
  (generic_type type: (type_identifier) @name)
  (scoped_type_identifier name: (type_identifier) @name)]) @impl
"""

C = """
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @function
(function_definition declarator: (pointer_declarator
  declarator: (function_declarator declarator: (identifier) @name))) @function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @prototype
(declaration declarator: (pointer_declarator
  declarator: (function_declarator declarator: (identifier) @name))) @prototype
(struct_specifier name: (type_identifier) @name body: (_)) @struct
(union_specifier name: (type_identifier) @name body: (_)) @struct
(enum_specifier name: (type_identifier) @name body: (_)) @enum
(enumerator name: (identifier) @name) @enum_member
(type_definition declarator: (type_identifier) @name) @type
(preproc_def name: (identifier) @name) @constant
(preproc_function_def name: (identifier) @name) @function
(field_declaration declarator: (field_identifier) @name) @field
(translation_unit (declaration declarator: [
  (identifier) @name
  (init_declarator declarator: (identifier) @name)]) @variable)
"""

CPP = (
    C
    + """
(class_specifier name: (type_identifier) @name body: (_)) @class
(namespace_definition name: (namespace_identifier) @name) @namespace
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier scope: (_) @container name: (identifier) @name))) @method
(function_definition declarator: (function_declarator
  declarator: (field_identifier) @name)) @method
(field_declaration declarator: (function_declarator
  declarator: (field_identifier) @name)) @method
"""
)

JAVA = """
(class_declaration name: (identifier) @name) @class
(interface_declaration name: (identifier) @name) @interface
(enum_declaration name: (identifier) @name) @enum
(record_declaration name: (identifier) @name) @class
(annotation_type_declaration name: (identifier) @name) @interface
(method_declaration name: (identifier) @name) @method
(constructor_declaration name: (identifier) @name) @constructor
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @constant
(enum_constant name: (identifier) @name) @enum_member
"""

RUBY = """
(class name: [(constant) @name (scope_resolution name: (_) @name)]) @class
(module name: [(constant) @name (scope_resolution name: (_) @name)]) @module
(method name: (_) @name) @method
(singleton_method name: (_) @name) @method
(assignment left: (constant) @name) @constant
"""


@dataclass(frozen=True)
class Grammar:
    """One language the syntactic fallback parses: its wheel, its files, its query."""

    language: str
    """The language's name, as `navigation.servers` keys it."""
    title: str
    module: str
    extensions: tuple[str, ...]
    query: str

    def load(self) -> tuple[Language, Query]:
        """The grammar and its compiled query (loaded once)."""
        return _load(self.module, self.query)


@functools.cache
def _load(module: str, query: str) -> tuple[Language, Query]:
    from tree_sitter import Language, Query

    language = Language(importlib.import_module(module).language())
    return language, Query(language, query)


GRAMMARS = (
    Grammar("go", "Go", "tree_sitter_go", (".go",), GO),
    Grammar("rust", "Rust", "tree_sitter_rust", (".rs",), RUST),
    Grammar("c", "C", "tree_sitter_c", (".c",), C),
    Grammar("cpp", "C++", "tree_sitter_cpp", (".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp"), CPP),
    Grammar("java", "Java", "tree_sitter_java", (".java",), JAVA),
    Grammar("ruby", "Ruby", "tree_sitter_ruby", (".rb",), RUBY),
)

BY_EXTENSION = {ext: grammar for grammar in GRAMMARS for ext in grammar.extensions}
"""Which grammar parses a file, by its (lower-case) extension."""

SCOPES = frozenset({"class", "struct", "interface", "enum", "module", "namespace", "impl"})
"""Kinds whose members are qualified by their name (`Class.method`)."""
TYPES = frozenset({"class", "struct", "interface", "impl"})
"""Kinds whose functions are methods."""
