#include "textflag.h"

// func storeRelease(w *atomic.Uint64, v uint64)
TEXT ·storeRelease(SB), NOSPLIT, $0-16
	MOVQ	w+0(FP), AX
	MOVQ	v+8(FP), BX
	MOVQ	BX, (AX)
	RET

// func prefetch(w *atomic.Uint64)
TEXT ·prefetch(SB), NOSPLIT, $0-8
	MOVQ	w+0(FP), AX
	PREFETCHT0	(AX)
	RET
