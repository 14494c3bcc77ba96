"""A transactional outbox: Celery work owed by a write is stored with the write.

See ``outbox.services`` for how it is used and why.
"""
