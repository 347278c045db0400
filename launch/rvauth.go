package launch

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/mpbench/mpbench/transport/auth"
)

// Authentication on the control connection (package transport/auth): the
// launcher opens with a challenge line {"nonce": hex}; the worker's
// registration carries its own nonce and
//
//	HMAC(secret, "mpbench rendezvous rank v1", launcher nonce, rank nonce, rank, size, addr)
//
// and the launcher's table carries
//
//	HMAC(secret, "mpbench rendezvous launcher v1", launcher nonce, rank nonce, rank, size, table)
//
// where table is the JSON of its addrs and hosts. Neither side sends the
// secret; a worker accepts only a table made by its own launcher.

const (
	roleRank     = "mpbench rendezvous rank v1"
	roleLauncher = "mpbench rendezvous launcher v1"
)

// challenge is the launcher's first line on a control connection.
type challenge struct {
	Nonce string `json:"nonce"`
}

// rankMAC is the MAC of a registration.
func rankMAC(secret []byte, launcherNonce, rankNonce []byte, m register) []byte {
	return auth.Sum(secret, roleRank, launcherNonce, rankNonce, auth.Ints(m.Rank, m.Size), []byte(m.Addr))
}

// tableMAC is the MAC of the table sent to rank (of size ranks).
func tableMAC(secret []byte, launcherNonce, rankNonce []byte, rank, size int, t table) []byte {
	return auth.Sum(secret, roleLauncher, launcherNonce, rankNonce, auth.Ints(rank, size), tableBody(t))
}

// tableBody is what tableMAC covers of t: the JSON of its addrs and hosts.
func tableBody(t table) []byte {
	body, _ := json.Marshal(table{Addrs: t.Addrs, Hosts: t.Hosts})
	return body
}

// checkRegistration verifies m's MAC against the launcher's nonce and
// returns the rank's nonce.
func checkRegistration(secret, launcherNonce []byte, m register) ([]byte, error) {
	rankNonce, err := hex.DecodeString(m.Nonce)
	if err != nil || len(rankNonce) != auth.NonceSize {
		return nil, errors.New("registration without a valid nonce")
	}
	mac, err := hex.DecodeString(m.MAC)
	if err != nil || !auth.Verify(mac, secret, roleRank, launcherNonce, rankNonce, auth.Ints(m.Rank, m.Size), []byte(m.Addr)) {
		return nil, errors.New("failed authentication (wrong job secret)")
	}
	return rankNonce, nil
}

// refusals reports each refused connection once per remote IP address:
// a scanner or a stale rank retrying does not flood the job's stderr.
type refusals struct {
	mu     sync.Mutex
	seen   map[string]bool
	report func(msg string) // nil: nothing is reported
}

// refused reports that a connection from remote failed with reason, where
// says what was connected to ("the rendezvous", "rank 3's TCP port").
func (f *refusals) refused(where, remote string, reason error) {
	if f == nil || f.report == nil {
		return
	}
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	f.mu.Lock()
	first := !f.seen[host]
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	f.seen[host] = true
	f.mu.Unlock()
	if first {
		f.report(fmt.Sprintf("mpbench: refused a connection to %s from %s: %v; the job goes on", where, remote, reason))
	}
}
