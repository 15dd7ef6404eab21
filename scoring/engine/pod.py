def compute(event, rounds):
    raise NotImplementedError
