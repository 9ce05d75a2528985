import { greeting, repeatCount } from './greeting.js';

for (let i = 0; i < repeatCount(); i++) {
  console.log(greeting('editwarden'));
}
