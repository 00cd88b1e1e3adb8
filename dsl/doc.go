// Package dsl is the syntax of the copulang modelling language: its lexer,
// its participle grammar, the AST (every node carries its source position),
// syntax errors with source snippets and hints, and a canonical printer.
//
// The package knows nothing of statistics: it does not resolve names, check
// argument names or evaluate expressions; package compiler does that. The
// entry points are Parse, IsComplete and Format.
//
// Lexical rules: statements are separated by newlines or ';'; newlines inside
// parentheses or brackets are ignored, so long calls may span lines; '#'
// starts a comment that runs to the end of the line; strings are double
// quoted with Go escapes and may not span lines; keywords (data, model, fit,
// ...) are ordinary identifiers recognised by position, so they remain usable
// as names elsewhere.
package dsl
