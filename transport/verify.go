package transport

import (
	"fmt"
	"hash/crc32"
	"os"
)

// EnvVerify is the environment variable that turns on the frame checksums
// of the debug mode MPBENCH_VERIFY=1: every frame a rank sends over TCP
// carries a CRC-32C (Castagnoli) of its header and payload, and the
// receiving rank checks it before the payload reaches the runtime, failing
// the job at the first corrupt frame with FrameCorruptError's one line.
// Off by default: frames are then sent without a checksum and nothing is
// computed. A receiver checks every frame that carries a checksum whatever
// its own setting, so ranks started with and without it still interoperate.
const EnvVerify = "MPBENCH_VERIFY"

// VerifyFromEnv reports whether EnvVerify is set to 1 (or "true", "on",
// "yes").
func VerifyFromEnv() bool {
	switch os.Getenv(EnvVerify) {
	case "1", "true", "on", "yes":
		return true
	}
	return false
}

// CRC32C is the Castagnoli table of the frame checksums (hardware
// accelerated on amd64 and arm64 by hash/crc32).
var CRC32C = crc32.MakeTable(crc32.Castagnoli)

// FrameCorruptError is the error a receiving rank reports for the first
// frame whose checksum does not match: it names the sending rank, the
// frame's position on its connection (Seq, from 1), its kind, tag and size.
type FrameCorruptError struct {
	Transport string // "tcp"
	Source    int    // sending rank
	Seq       uint64 // checksummed frame number in the stream from Source, from 1
	Kind      Kind
	Tag       int32
	Length    uint64 // payload bytes
	Got, Want uint32 // checksum computed here, checksum sent
}

// Error names the transport, the sending rank, the frame's place in its
// stream, kind, tag and size, and both checksums.
func (e *FrameCorruptError) Error() string {
	return fmt.Sprintf("%s: corrupt frame from rank %d (%s=1): frame %d of its stream, %v, tag %d, %d bytes: crc32c %08x, sent %08x",
		e.Transport, e.Source, EnvVerify, e.Seq, e.Kind, e.Tag, e.Length, e.Got, e.Want)
}
