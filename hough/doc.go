// Package hough draws exact Hamiltonian Monte Carlo transitions for Gaussian
// vectors restricted by the order constraints of an ordinal column (the
// extended rank likelihood), after Kalaitzis & Silva (NIPS 2013) and Pakman &
// Paninski (2014). It knows nothing of copulas: it samples x ~ N(mu, sigma²I)
// subject to max(level l) <= min(level l+1), and offers a general exact HMC for
// F x <= g used as a test oracle.
package hough
