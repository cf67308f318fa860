// A build starts from an empty dist/: a file removed from src/ must not live on in dist/.
import { rmSync } from 'node:fs';
rmSync('dist', { recursive: true, force: true });
