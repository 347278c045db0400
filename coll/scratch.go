package coll

import "github.com/mpbench/mpbench/internal/bufpool"

// scratch returns n bytes of working space whose contents are undefined and
// the function that gives them back; call it once no request uses them
// (every algorithm here waits for its requests before it returns). The
// space comes from internal/bufpool, so a collective repeated on the same
// sizes, as a benchmark does, touches warm pages instead of faulting in and
// zeroing fresh ones on every call.
func scratch(n int) ([]byte, func()) {
	if n <= 0 {
		return nil, func() {}
	}
	p := bufpool.Get(n)
	return *p, func() { bufpool.Put(p) }
}
