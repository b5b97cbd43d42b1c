"""The api room: the C library binding and the data model over it (plans, cases, tensors, pools,
verdicts, reports, decode sequences). It imports nothing from the other rooms."""
