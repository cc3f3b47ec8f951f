// HandlerKit: serializable handlers. The runtime is being written (issue 2).
