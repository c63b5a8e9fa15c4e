// Package deadline is the seam through which a guest call is bounded in time.
//
// wazero v1.12.0 offers one way to stop a guest that never calls the host:
// RuntimeConfig.WithCloseOnContextDone(true), which checks for a done context
// on every loop back-edge and function entry and closes the instance. It
// costs 10 to 17 times on Go plugins (upstream wazero issue 2466). The other
// mode only observes the deadline where the guest crosses into the host and
// when it returns, which is free but cannot stop a pure loop. Everything that
// depends on the choice is here, so that a cheaper mechanism can replace the
// first mode without touching the host.
package deadline
