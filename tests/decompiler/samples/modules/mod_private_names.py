"""Private names in a class: written `self.__x` again, not `self._Account__x` (3.13 records
them as written in `__static_attributes__`)."""


class Account:
    __rate = 2

    def __init__(self, __owner, *, __start=10):
        import math as __math
        self.__owner = __owner
        self.__balance = __math.floor(__start)
        self.__history = [lambda: self.__balance]

    def __bump(self):
        self.__balance *= Account.__rate
        return self.__balance

    def report(self):
        try:
            return self.__owner, self.__bump(), self.__history[0]()
        except ValueError as __e:  # unreachable
            return __e  # unreachable

    def refuse(self):
        try:
            raise ValueError(self.__owner)
        except ValueError as __e:
            return __e.args


class _Hidden:
    class Inner:
        def peek(self):
            return getattr(self, "_Inner__secret", None)

    def __secret(self):
        return self.Inner().peek(), self.__dict__


def _check():
    account = Account("ann")
    return account.report(), account.refuse(), _Hidden()._Hidden__secret(), sorted(vars(Account))
