//go:build !amd64 || race

package comm

import "sync/atomic"

// setNote stores v in a waker's note with note.Store; see note_amd64.go.
func setNote(note *atomic.Uint32, v uint32) { note.Store(v) }
