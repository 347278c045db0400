package tcp

import (
	"testing"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/transporttest"
)

func TestConformance(t *testing.T) {
	transporttest.Run(t, func(n int) ([]transport.Endpoint, error) { return NewJob(n, Options{}) })
}
