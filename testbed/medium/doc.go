// Package medium holds the testbed's network models as pure code: given the
// length of an Ethernet frame, the port it entered on and the time it
// entered, a Medium says when the frame reaches each destination port. The
// models keep their own state (when each line or the shared medium becomes
// free), so a sequence of frames sees queueing and contention exactly as
// the model defines it. Times are time.Duration offsets from an origin the
// caller chooses (the forwarder uses its start time).
//
// Three models reproduce the networks of the study (seed 000, chapter 2.2):
//
//   - Switch: full duplex, every port shaped at the rate in each
//     direction, frames stored and forwarded (one serialisation on the
//     sender's port, one on the receiver's).
//   - Hub: one shared half-duplex medium; every frame of every node, in
//     either direction, is serialised through it at the rate.
//   - Wifi: a shared half-duplex medium whose per-frame cost is IEEE
//     802.11g's (ERP-OFDM) DIFS, backoff, PLCP preamble and header, data
//     symbols, SIFS and ACK; in infrastructure mode each frame crosses
//     the air twice (station to access point, access point to station).
//
// A frame as the forwarder reads it from a TAP device is the MAC header (14
// bytes) and the MAC client data, without preamble, FCS or inter-frame gap;
// WireBytes adds those, so that a shaped link carries TCP payload at the
// rate analysis.EthernetModel predicts (1460/1538 of the rate with
// 1500-byte MTU and no TCP timestamps: 94.9 Mbit/s at 100 Mbit/s).
package medium
