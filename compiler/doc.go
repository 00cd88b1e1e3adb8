// Package compiler gives copulang programs their meaning: Check resolves the
// names of a parsed file against the session's bindings and against the
// bindings made earlier in the same file, checks arities, argument names,
// types and ranges, and turns the statements into a checked IR (Program);
// Plan chooses how a model is sampled, column by column, and says why.
//
// The compiler runs nothing and reads no files. A data set loaded earlier in
// the same file has an unknown shape until it is read, so statements that
// depend on its columns are checked only partly (they report Partial() ==
// true); checking each statement again just before it runs, with the
// session's bindings up to date, completes the check.
package compiler
