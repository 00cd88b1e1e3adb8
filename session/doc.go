// Package session executes copulang statements: it holds the bindings (data
// sets, models, fits) that live from one cell to the next, loads CSV data,
// runs fits through package inference, and shows results as text, tables
// and figures (drawn by package figure, turned here into display data or
// handed to the CLI as files). It knows nothing of sockets: the kernel and
// the CLI drive it.
package session
