package testbed

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// Stats are the forwarder's counters, written to stats.json in the
// testbed's directory every half second and when it stops.
type Stats struct {
	Frames      uint64    `json:"frames"`        // frames read from the nodes
	Bytes       uint64    `json:"bytes"`         // their bytes (MAC header and client data)
	Delivered   uint64    `json:"delivered"`     // frames written to receivers
	Lost        uint64    `json:"lost"`          // dropped by the configured loss
	QueueDrops  uint64    `json:"queue_drops"`   // dropped at a full receiver queue (QueueLimit)
	Oversize    uint64    `json:"oversize"`      // frames longer than MTU + 14 (offloads not off)
	LateP50Usec float64   `json:"late_p50_usec"` // delivery after the model's time, median
	LateP99Usec float64   `json:"late_p99_usec"` // and 99th percentile, of the last 4096 frames
	PolledMs    float64   `json:"polled_ms"`     // time spent polling after frames (Config.Poll), milliseconds
	Updated     time.Time `json:"updated"`
}

// ReadStats returns the forwarder counters of testbed name.
func ReadStats(name string) (Stats, error) {
	var s Stats
	b, err := os.ReadFile(filepath.Join(Dir(name), "stats.json"))
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(b, &s)
}
