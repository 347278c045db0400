package transport

// PeerReport is what a transport states about how its ranks reach each
// other, beyond its name: a fact each rank learns about every peer while
// it connects, summed up on one line of the run's header and metadata
// once rank 0 has gathered every rank's facts. Shared memory reports how a
// rank reads each peer's large payloads: by single copy, or through the
// rings and why (Properties.Report of transport/shm). The command line
// gathers every registered report (Reports), so a transport's line needs
// no code outside its package.
type PeerReport struct {
	// Header names the header line, e.g. "Single copy" for "# Single
	// copy : ...".
	Header string
	// Key names the line's entry in the result files' metadata, e.g.
	// "single_copy": Header in lower case, blanks as '_', the key the
	// IMB text reader gives the line.
	Key string
	// Facts returns, when ep is an endpoint of this transport, its fact
	// about every rank of the job (index: peer rank), one byte each; nil
	// otherwise.
	Facts func(ep Endpoint) []byte
	// Describe sums up every rank's facts, facts[rank][peer] (a rank that
	// does not use this transport has a row of zeros), in one line; ""
	// when there is nothing to state.
	Describe func(facts [][]byte) string
}

// Combined is implemented by an endpoint that reaches its peers through
// endpoints of several transports (transport/hybrid).
type Combined interface {
	// Parts returns the endpoints in use.
	Parts() []Endpoint
}

// Reports returns the PeerReport of every registered transport that has
// one, in the order of Drivers (by name).
func Reports() []*PeerReport {
	var out []*PeerReport
	for _, d := range Drivers() {
		if r := d.Properties().Report; r != nil {
			out = append(out, r)
		}
	}
	return out
}

// FactsOf returns r.Facts of ep, or of the first of ep's parts that gives
// any when ep is Combined; nil when none is this transport's endpoint.
func (r *PeerReport) FactsOf(ep Endpoint) []byte {
	if f := r.Facts(ep); f != nil {
		return f
	}
	if c, ok := ep.(Combined); ok {
		for _, p := range c.Parts() {
			if f := r.Facts(p); f != nil {
				return f
			}
		}
	}
	return nil
}
