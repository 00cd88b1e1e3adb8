// Package hough draws exact Hamiltonian Monte Carlo transitions for Gaussian
// vectors restricted by the order constraints of an ordinal column (the
// extended rank likelihood), after Kalaitzis & Silva (NIPS 2013) and Pakman &
// Paninski (2014). It knows nothing of copulas: it samples x ~ N(mu, sigma²I)
// subject to max(level l) <= min(level l+1), and offers a general exact HMC for
// F x <= g used as a test oracle.
//
// A Sampler runs one column: NewSampler(levels, Options{}) then Transition
// once per iteration; samplers that run in turn, as the columns of one chain,
// can share the O(n) scratch memory of their trajectories (Workspace). Three
// collision searches give the same trajectories: the
// kinetic search (Kinetic, the default: the Walk search below, or kinetic
// tournaments for columns of three levels or more with a level of more
// than 6,144 curves), the walk (Walk: the
// Hough envelope of each wall followed among the few curves near it, the
// others asleep with certificates of the time they could come near) and the
// Hough envelope of the paper (Envelope, O(n) per bounce). PP is the general
// Pakman–Paninski sampler with a dense covariance or precision.
//
// The maths and the tests are specified in sampling.md §2, §3 and §6.
package hough
